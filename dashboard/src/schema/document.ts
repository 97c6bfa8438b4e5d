// The schema document of CONTRACT 4.1: what the builder edits, the platform
// API stores and generate publishes. Field names are the wire names. What
// each column type is comes from the server's type registry, generated
// into columnTypes.gen.ts (`go generate ./schema`).
import { columnTypes } from './columnTypes.gen';

/** A column type's registry entry: its label, PostgreSQL type, example value and traits. */
export type ColumnTypeInfo = (typeof columnTypes)[number];
type OfferedType = Extract<ColumnTypeInfo, { offered: true }>;

/** The traits of a type (schema.Traits): which rules, operators and aggregates apply. */
export type TypeTraits = { readonly [K in keyof ColumnTypeInfo['traits']]: boolean };

/** The types a user may choose, in the builder's order. */
export const COLUMN_TYPES: readonly OfferedType['name'][] = columnTypes
  .filter((t): t is OfferedType => t.offered)
  .map((t) => t.name);

export type ColumnType = OfferedType['name'];

/** The registry's entry of a type, or undefined for a name it does not know. */
export function columnTypeInfo(type: string): ColumnTypeInfo | undefined {
  return columnTypes.find((t) => t.name === type);
}

/** The traits of a type; every trait is false for a name the registry does not know. */
export function traitsOf(type: string): TypeTraits | undefined {
  return columnTypeInfo(type)?.traits;
}

/** The offered types with a trait, in the builder's order. */
function typesWith(trait: keyof TypeTraits): readonly string[] {
  return columnTypes.filter((t) => t.offered && t.traits[trait]).map((t) => t.name);
}

export const OPERATIONS = ['read', 'create', 'update', 'delete'] as const;
export type Operation = (typeof OPERATIONS)[number];

export const PERMISSION_LEVELS = ['public', 'authenticated', 'owner', 'key'] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

export const ON_DELETE_ACTIONS = ['restrict', 'cascade', 'set_null'] as const;
export type OnDeleteAction = (typeof ON_DELETE_ACTIONS)[number];

export const ID_TYPES = ['integer', 'uuid'] as const;
export type IdType = (typeof ID_TYPES)[number];

export const SYSTEM_COLUMNS = ['id', 'created_at', 'updated_at'] as const;

export interface Reference {
  table: string;
  on_delete?: OnDeleteAction;
}

export interface SchemaColumn {
  name: string;
  // A fronted database may carry "passthrough" columns the builder shows
  // but does not offer, so the type stays a plain string on the wire.
  type: ColumnType | string;
  renamed_from?: string;
  description?: string;
  required?: boolean;
  unique?: boolean;
  default?: unknown;
  /** The value existing rows get once when generate adds the column; new records do not get it. */
  backfill?: unknown;
  min?: number;
  max?: number;
  min_length?: number;
  max_length?: number;
  pattern?: string;
  values?: string[];
  index?: boolean;
  searchable?: boolean;
  references?: Reference;
  html?: boolean;
  relation?: string;
  reverse_relation?: string;
  /** A file or files column's most bytes per file (docs/files.md). */
  max_size?: number;
  /** The media types a file or files column takes, as sniffed from the content: `image/png`, `image/*`. */
  mime_types?: string[];
  /** Images served as thumbnails (file and files): not offered by the builder yet, kept as the document says. */
  thumbnails?: boolean;
  /** The most files a files column holds (1..100, 10 when unset). */
  max_files?: number;
  pg_type?: string;
}

export type Permissions = Partial<Record<Operation, PermissionLevel>>;

export interface Position {
  x: number;
  y: number;
}

export interface TableCache {
  max_age: number;
}

/** Bounds of cache.max_age in seconds, as schema.MinCacheMaxAge and MaxCacheMaxAge. */
export const CACHE_MAX_AGE_MIN = 1;
export const CACHE_MAX_AGE_MAX = 86400;

/** The auth table's e-mail verification, as schema.EmailVerification*: absent is off. */
export const EMAIL_VERIFICATION = ['off', 'optional', 'required'] as const;
export type EmailVerification = (typeof EMAIL_VERIFICATION)[number];

export interface SchemaTable {
  name: string;
  renamed_from?: string;
  description?: string;
  auth?: boolean;
  id_type?: IdType;
  owner_column?: string;
  permissions?: Permissions;
  /** Links two tables many-to-many through its two required references. */
  junction?: boolean;
  /** Captures the table's changes for the realtime stream (docs/realtime.md). */
  realtime?: boolean;
  /** Lets shared caches keep anonymous reads for max_age seconds (docs/edge-cache.md); needs public read. */
  cache?: TableCache;
  /** The auth table's e-mail verification (docs/end-user-auth.md); only on the auth table. */
  email_verification?: EmailVerification;
  columns: SchemaColumn[];
  position?: Position;
  external?: { primary_key: string; has_created_at?: boolean; has_updated_at?: boolean };
}

export interface SchemaDocument {
  tables: SchemaTable[];
}

/** Types that take min and max. */
export const NUMERIC_TYPES = typesWith('numeric');
/** Types that take min_length, max_length and pattern. */
export const TEXT_LIKE_TYPES = typesWith('lengths');
/** Types whose values the list endpoint's `search` matches (CONTRACT 5.1). */
export const SEARCHABLE_TYPES = typesWith('textual');
/** Types whose values are uploaded files (file, files). */
export const UPLOAD_TYPES = typesWith('upload');
/** Types whose values are lists of files (files). */
export const MANY_TYPES = typesWith('many');

/** Whether a column holds uploaded files: its values are written as multipart/form-data parts, never as JSON. */
export function isUploadColumn(column: Pick<SchemaColumn, 'type'>): boolean {
  return Boolean(traitsOf(column.type)?.upload);
}

/**
 * The most characters of a value of a unique or indexed text, URL, e-mail or
 * enum column (schema.MaxIndexedLength): each value is a key of a PostgreSQL
 * index, whose entries hold at most 2,704 bytes.
 */
export const MAX_INDEXED_LENGTH = 600;

/** Whether the column's values are keys of an index on the column itself. */
export function indexedValue(column: SchemaColumn): boolean {
  return Boolean(column.unique || column.index) && SEARCHABLE_TYPES.includes(column.type);
}

/** The most characters the server takes in a value of the column (schema.MaxLength), if anything bounds it. */
export function maxLengthOf(column: SchemaColumn): number | undefined {
  if (indexedValue(column) && (column.max_length === undefined || column.max_length > MAX_INDEXED_LENGTH)) return MAX_INDEXED_LENGTH;
  return column.max_length;
}

export const TYPE_LABELS = Object.fromEntries(
  columnTypes.filter((t) => t.offered).map((t) => [t.name, t.label]),
) as Record<ColumnType, string>;

export function isColumnType(value: string): value is ColumnType {
  return (COLUMN_TYPES as readonly string[]).includes(value);
}

/** The relation name a foreign-key column defines on its own table: its name without `_id`, else the target's name (CONTRACT 4.2). */
export function forwardRelationName(column: SchemaColumn): string {
  if (column.relation) return column.relation;
  if (column.name.endsWith('_id') && column.name.length > 3) return column.name.slice(0, -3);
  return column.references?.table ?? column.name;
}

/** The relation name a foreign-key column defines on the table it references. */
export function reverseRelationName(table: SchemaTable, column: SchemaColumn): string {
  return column.reverse_relation || table.name;
}

/** Relation names usable in `include` on the given table, forward first. */
export function relationNamesOf(doc: SchemaDocument, tableName: string): string[] {
  const names: string[] = [];
  const own = doc.tables.find((t) => t.name === tableName);
  for (const column of own?.columns ?? []) {
    if (column.references) names.push(forwardRelationName(column));
  }
  for (const table of doc.tables) {
    for (const column of table.columns) {
      if (column.references?.table === tableName) names.push(reverseRelationName(table, column));
    }
  }
  return names;
}

// The columns the Data page shows for a table: the system id first, the
// table's own columns (passwords are never returned), then the two
// timestamps the service keeps.
import { bodyFieldName } from '../console/exampleRecord';
import { SEARCHABLE_TYPES, traitsOf, type SchemaColumn, type SchemaTable } from '../schema/document';

export interface GridColumn {
  name: string;
  type: string;
  /** id, created_at, updated_at: set by the service, never edited. */
  system: boolean;
  /** The schema's column, for the table's own columns. */
  column?: SchemaColumn;
  /** The table a foreign key points at. */
  references?: string;
  /** The body field a write names. */
  field: string;
}

export function gridColumns(table: SchemaTable): GridColumn[] {
  const own = table.columns
    .filter((c) => !traitsOf(c.type)?.secret)
    .map((c) => ({ name: c.name, type: c.type, system: false, column: c, references: c.references?.table, field: bodyFieldName(c) }));
  const external = table.external;
  const out: GridColumn[] = [{ name: 'id', type: table.id_type ?? 'integer', system: true, field: 'id' }, ...own];
  if (!external || external.has_created_at) out.push({ name: 'created_at', type: 'timestamp', system: true, field: 'created_at' });
  if (!external || external.has_updated_at) out.push({ name: 'updated_at', type: 'timestamp', system: true, field: 'updated_at' });
  return out;
}

/** Whether a cell of this column can be changed in place: files are chosen in the record form. */
export function isEditable(column: GridColumn): boolean {
  return !column.system && column.type !== 'passthrough' && !traitsOf(column.type)?.upload;
}

/** Whether the list can be sorted by the column (a comparable type: not json, passwords or files). */
export function isSortable(column: GridColumn): boolean {
  return column.type !== 'json' && !traitsOf(column.type)?.upload;
}

/** Columns a record is found by in a picker: the text-like ones `search` matches. */
export function labelColumns(table: SchemaTable | undefined): string[] {
  return (table?.columns ?? []).filter((c) => SEARCHABLE_TYPES.includes(c.type)).map((c) => c.name);
}

/** A record in words for pickers and reference cells: `#3 · Ada Lovelace`. */
export function recordLabel(table: SchemaTable | undefined, row: Record<string, unknown>): string {
  const first = labelColumns(table)
    .map((c) => row[c])
    .find((v) => typeof v === 'string' && v !== '');
  return first ? `#${String(row.id)} · ${String(first)}` : `#${String(row.id)}`;
}

// Client-side checks of a schema document, mirroring CONTRACT 4.1 so the
// builder can flag problems as the user types. The server's validate endpoint
// remains the final word; both report problems keyed by the same paths
// (`tables[1].columns[0].type`).
import {
  CACHE_MAX_AGE_MAX,
  CACHE_MAX_AGE_MIN,
  EMAIL_VERIFICATION,
  COLUMN_TYPES,
  ID_TYPES,
  MAX_INDEXED_LENGTH,
  NUMERIC_TYPES,
  SEARCHABLE_TYPES,
  TEXT_LIKE_TYPES,
  UPLOAD_TYPES,
  MANY_TYPES,
  traitsOf,
  ON_DELETE_ACTIONS,
  OPERATIONS,
  PERMISSION_LEVELS,
  SYSTEM_COLUMNS,
  forwardRelationName,
  indexedValue,
  maxLengthOf,
  reverseRelationName,
  type SchemaColumn,
  type SchemaDocument,
  type SchemaTable,
} from '../schema/document';
import { isEmail, normalizeEmail } from '../lib/email';
import { MAX_MAX_FILES, mediaTypesProblem } from './fileSettings';
import { bodyFieldName } from '../console/exampleRecord';

export type SchemaProblems = Record<string, string>;

export const NAME_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;
export const RESERVED_TABLE_NAMES = ['auth', 'docs', 'openapi', 'realtime'];
/** Columns PostgreSQL gives every table itself (schema.postgresSystemColumns): no column may take their names. */
export const POSTGRES_SYSTEM_COLUMNS = ['tableoid', 'xmin', 'cmin', 'xmax', 'cmax', 'ctid'];

export function nameProblem(name: string): string | undefined {
  if (name === '') return 'is required';
  if (name.startsWith('_')) return 'must not start with an underscore';
  if (name.length > 63) return 'must be at most 63 characters';
  if (!/^[a-z]/.test(name)) return 'must start with a lower-case letter';
  if (!NAME_PATTERN.test(name)) return 'may hold only lower-case letters, digits and underscores';
  return undefined;
}

// Limits of schema.Validate (MaxTables, MaxColumns).
// schema.MaxTables and schema.MaxColumns; the server also bounds the
// document's size (1 MiB as JSON), which only it checks.
export const MAX_TABLES = 100;
export const MAX_COLUMNS = 100;

/**
 * The problems of a document by path. The Go validator (schema.Validate) is
 * the authority: schema/testdata/agreement.json holds documents with the
 * paths it reports, and agreement.test.ts checks that this function reports
 * exactly those.
 */
/** The limits a project's schema may not pass; as on the server, a document over them gets no other problem. */
function limitProblems(doc: SchemaDocument): SchemaProblems {
  const problems: SchemaProblems = {};
  if (doc.tables.length > MAX_TABLES) problems.tables = `at most ${MAX_TABLES} tables per project`;
  doc.tables.forEach((table, ti) => {
    if (table.columns.length > MAX_COLUMNS) problems[`tables[${ti}].columns`] = `at most ${MAX_COLUMNS} columns per table`;
  });
  return problems;
}

export function validateDocument(doc: SchemaDocument): SchemaProblems {
  const limits = limitProblems(doc);
  if (Object.keys(limits).length > 0) return limits;
  const problems: SchemaProblems = {};
  const tableNames = doc.tables.map((t) => t.name);
  const authTables = doc.tables.filter((t) => t.auth).map((t) => t.name);

  doc.tables.forEach((table, ti) => {
    const at = `tables[${ti}]`;
    const nameIssue = tableNameProblem(table.name, tableNames, ti);
    if (nameIssue) problems[`${at}.name`] = nameIssue;
    if (table.renamed_from !== undefined && table.renamed_from !== '' && nameProblem(table.renamed_from)) {
      problems[`${at}.renamed_from`] = 'is not a valid table name';
    }
    if (table.id_type !== undefined && !(ID_TYPES as readonly string[]).includes(table.id_type)) {
      problems[`${at}.id_type`] = `must be one of ${ID_TYPES.join(', ')}`;
    }
    // Capture needs triggers in the database, and Tablesmith does not change one it fronts.
    if (table.realtime && table.external) {
      problems[`${at}.realtime`] = 'is not available on a table of a fronted database (it would need triggers in that database)';
    }
    table.columns.forEach((column, ci) => {
      Object.assign(problems, columnProblems(doc, table, column, ci, `${at}.columns[${ci}]`));
    });
    Object.assign(problems, authProblems(table, at, authTables));
    Object.assign(problems, junctionProblems(table, at));
    Object.assign(problems, permissionProblems(doc, table, at));
    Object.assign(problems, cacheProblems(table, at));
    Object.assign(problems, emailVerificationProblems(table, at));
  });
  // Like the server, relation names are checked once everything else holds.
  if (Object.keys(problems).length === 0) Object.assign(problems, relationClashes(doc));
  return problems;
}

function tableNameProblem(name: string, names: string[], index: number): string | undefined {
  const issue = nameProblem(name);
  if (issue) return `Table name ${issue}`;
  if (RESERVED_TABLE_NAMES.includes(name)) return `"${name}" is reserved`;
  if (names.indexOf(name) !== index) return `another table is already named "${name}"`;
  return undefined;
}

function columnProblems(
  doc: SchemaDocument,
  table: SchemaTable,
  column: SchemaColumn,
  index: number,
  at: string,
): SchemaProblems {
  const problems: SchemaProblems = {};
  const issue = nameProblem(column.name);
  if (issue) problems[`${at}.name`] = `Column name ${issue}`;
  else if ((SYSTEM_COLUMNS as readonly string[]).includes(column.name) && !table.external) {
    problems[`${at}.name`] = `"${column.name}" is a system column every table already has`;
  } else if (POSTGRES_SYSTEM_COLUMNS.includes(column.name)) {
    problems[`${at}.name`] = `"${column.name}" is reserved: PostgreSQL gives every table a column of that name (${POSTGRES_SYSTEM_COLUMNS.join(', ')})`;
  } else if (table.columns.findIndex((c) => c.name === column.name) !== index) {
    problems[`${at}.name`] = `another column of "${table.name}" is already named "${column.name}"`;
  }
  if (column.renamed_from !== undefined && column.renamed_from !== '' && nameProblem(column.renamed_from)) {
    problems[`${at}.renamed_from`] = 'is not a valid column name';
  }
  // A password column x_hash takes its value in the field x (schema.checkInputNames).
  const field = bodyFieldName(column);
  const fieldTaken =
    table.columns.some((c) => c.name === field) || ((SYSTEM_COLUMNS as readonly string[]).includes(field) && !table.external);
  if (field !== column.name && fieldTaken && !problems[`${at}.name`]) {
    problems[`${at}.name`] = `the password column ${column.name} takes its value in the field "${field}", which is also the name of a column of "${table.name}"; rename one of them`;
  }

  // A passthrough column (fronted databases only) and a column of an
  // unknown type take no further checks.
  if (column.type === 'passthrough' && table.external) return problems;
  if (!(COLUMN_TYPES as readonly string[]).includes(column.type)) {
    problems[`${at}.type`] = `unknown type "${column.type}"`;
    return problems;
  }

  Object.assign(problems, rangeProblems(column, at));

  if (column.type === 'enum') {
    const values = column.values ?? [];
    if (values.length === 0) problems[`${at}.values`] = 'an enum needs at least one value';
    else if (values.some((v) => v === '')) problems[`${at}.values`] = 'values must not be empty';
    else if (new Set(values).size !== values.length) problems[`${at}.values`] = 'values must be distinct';
    else if (indexedValue(column) && values.some((v) => [...v].length > MAX_INDEXED_LENGTH)) {
      problems[`${at}.values`] = `values of a unique or indexed enum are at most ${MAX_INDEXED_LENGTH} characters (they are kept in an index)`;
    }
  } else if (column.values !== undefined && column.values.length > 0) {
    problems[`${at}.values`] = 'only enum columns take values';
  }
  if (column.searchable && !SEARCHABLE_TYPES.includes(column.type)) {
    problems[`${at}.searchable`] = 'only text, e-mail, URL and enum columns are searchable';
  }
  const traits = traitsOf(column.type);
  if (column.html && !traits?.markup) problems[`${at}.html`] = 'html applies to text columns only';
  const hasDefault = column.default !== undefined && column.default !== null;
  if (traits?.secret && (column.unique || column.index || hasDefault)) {
    problems[`${at}.type`] = `a ${column.type} column cannot be unique, indexed or have a default`;
  } else if (column.unique && !traits?.unique) {
    problems[`${at}.unique`] = `${column.type} columns cannot be unique`;
  }
  if (column.index && !traits?.secret && !traits?.indexable) problems[`${at}.index`] = `${column.type} columns cannot be indexed`;
  Object.assign(problems, fileSettingProblems(column, at));
  if (hasDefault && traits?.upload) {
    problems[`${at}.default`] = `a ${column.type} column takes no default (its values are uploaded files)`;
  } else if (hasDefault && !traits?.secret) {
    const defaultIssue = defaultProblem(column);
    if (defaultIssue) problems[`${at}.default`] = defaultIssue;
  }
  if (column.backfill !== undefined && column.backfill !== null && traits?.upload) {
    problems[`${at}.backfill`] = `a ${column.type} column takes no backfill (its values are uploaded files)`;
  }

  if (column.references) {
    Object.assign(problems, referenceProblems(doc, table, column, at));
  } else if (column.relation || column.reverse_relation) {
    problems[`${at}.relation`] = 'only a column with a reference names a relation';
  }
  for (const relation of [column.relation, column.reverse_relation]) {
    if (relation && nameProblem(relation)) problems[`${at}.relation`] ??= 'relation names follow the name rules';
  }
  return problems;
}

/**
 * The settings of file columns (schema.checkFileSettings): max_size,
 * mime_types and thumbnails on file and files columns only, max_files on
 * files columns only, each within its bounds. Where two rules meet at one
 * path the first one's words are kept, as on the server.
 */
export function fileSettingProblems(column: SchemaColumn, at: string): SchemaProblems {
  const problems: SchemaProblems = {};
  const traits = traitsOf(column.type);
  const mimeTypes = column.mime_types ?? [];
  if ((column.max_size !== undefined || mimeTypes.length > 0 || column.thumbnails) && !traits?.upload) {
    problems[`${at}.max_size`] = `max_size, mime_types and thumbnails apply to ${UPLOAD_TYPES.join(', ')} columns only`;
  }
  if (column.max_files !== undefined && !traits?.many) {
    problems[`${at}.max_files`] = `max_files applies to ${MANY_TYPES.join(', ')} columns only`;
  }
  if (column.max_size !== undefined && (!Number.isInteger(column.max_size) || column.max_size < 1)) {
    problems[`${at}.max_size`] ??= Number.isInteger(column.max_size) ? 'must be at least 1 (bytes)' : 'must be a whole number of bytes';
  }
  if (column.max_files !== undefined && (!Number.isInteger(column.max_files) || column.max_files < 1 || column.max_files > MAX_MAX_FILES)) {
    problems[`${at}.max_files`] ??= `must be between 1 and ${MAX_MAX_FILES}`;
  }
  const mediaIssue = mediaTypesProblem(mimeTypes);
  if (mediaIssue) problems[`${at}.mime_types`] = mediaIssue;
  return problems;
}

function rangeProblems(column: SchemaColumn, at: string): SchemaProblems {
  const problems: SchemaProblems = {};
  const numeric = NUMERIC_TYPES.includes(column.type);
  const textLike = TEXT_LIKE_TYPES.includes(column.type);
  if ((column.min !== undefined || column.max !== undefined) && !numeric) {
    problems[`${at}.min`] = 'min and max apply to numeric columns';
  }
  if (column.min !== undefined && column.max !== undefined && column.min > column.max) {
    problems[`${at}.min`] ??= 'must not be greater than max';
  }
  const hasPattern = column.pattern !== undefined && column.pattern !== '';
  if ((column.min_length !== undefined || column.max_length !== undefined || hasPattern) && !textLike) {
    problems[`${at}.max_length`] = 'lengths and patterns apply to text-like columns';
  }
  if (column.min_length !== undefined && (!Number.isInteger(column.min_length) || column.min_length < 0)) {
    problems[`${at}.min_length`] = 'must be a whole number, 0 or more';
  }
  if (column.max_length !== undefined && (!Number.isInteger(column.max_length) || column.max_length < 1)) {
    problems[`${at}.max_length`] ??= 'must be at least 1';
  }
  if (column.min_length !== undefined && column.max_length !== undefined && column.min_length > column.max_length) {
    problems[`${at}.min_length`] ??= 'must not be greater than max_length';
  }
  if (hasPattern && patternProblem(column.pattern ?? '')) problems[`${at}.pattern`] = 'is not a valid regular expression';
  return problems;
}

/**
 * Whether a column pattern is a regular expression the server (Go's RE2)
 * accepts. RE2 has no lookaround or backreferences; JavaScript has no
 * inline flag groups, so those are taken off before JavaScript compiles
 * the rest.
 */
export function patternProblem(pattern: string): string | undefined {
  if (/\(\?<?[=!]/.test(pattern)) return 'lookahead and lookbehind are not supported';
  if (/\\[1-9]|\\k</.test(pattern)) return 'backreferences are not supported';
  const flagless = pattern.replace(/\(\?[imsU]*(?:-[imsU]*)?\)/g, '').replace(/\(\?[imsU]*(?:-[imsU]*)?:/g, '(?:');
  try {
    new RegExp(flagless, 'u');
    return undefined;
  } catch {
    try {
      new RegExp(flagless);
      return undefined;
    } catch {
      return 'is not a valid regular expression';
    }
  }
}

/** The compiled pattern as the server matches it (inline (?i) honoured). */
export function compilePattern(pattern: string): RegExp | undefined {
  if (patternProblem(pattern)) return undefined;
  const flags = /^\(\?([ims]+)\)/.exec(pattern)?.[1] ?? '';
  const body = pattern.replace(/\(\?[imsU]*(?:-[imsU]*)?\)/g, '').replace(/\(\?[imsU]*(?:-[imsU]*)?:/g, '(?:');
  try {
    return new RegExp(body, flags.replace('U', ''));
  } catch {
    return undefined;
  }
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DECIMAL_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function validDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** A default value checked as the server checks a value of the column (schema.CheckValue). */
function defaultProblem(column: SchemaColumn): string | undefined {
  const value = column.default;
  if (value === undefined || value === null) return undefined;
  if (value === 'now' && (column.type === 'timestamp' || column.type === 'date')) return undefined;
  switch (column.type) {
    case 'text':
    case 'email':
    case 'url':
    case 'enum':
      return typeof value === 'string' ? stringProblem(column, value) : 'must be a string';
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) ? withinRange(column, value) : 'must be a whole number';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? withinRange(column, value) : 'must be a number';
    case 'decimal': {
      const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
      if (text === undefined || !DECIMAL_RE.test(text) || !Number.isFinite(Number(text))) return 'must be a decimal number';
      return withinRange(column, Number(text));
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'timestamp': {
      const m = typeof value === 'string' ? TIMESTAMP_RE.exec(value) : null;
      if (!m) return 'must be an RFC 3339 date-time (e.g. 2026-01-31T12:00:00Z)';
      const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
      const inRange = h !== undefined && mi !== undefined && s !== undefined && h < 24 && mi < 60 && s < 60;
      return inRange && validDate(y ?? 0, mo ?? 0, d ?? 0) ? undefined : 'must be an RFC 3339 date-time (e.g. 2026-01-31T12:00:00Z)';
    }
    case 'date': {
      const m = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
      return m && validDate(Number(m[1]), Number(m[2]), Number(m[3])) ? undefined : 'must be a date (YYYY-MM-DD)';
    }
    case 'uuid':
      return typeof value === 'string' && UUID_RE.test(value) ? undefined : 'must be a UUID';
    case 'json':
      return JSON.stringify(value).includes('\\u0000') ? 'must not contain NUL characters' : undefined;
    default:
      return undefined;
  }
}

function stringProblem(column: SchemaColumn, raw: string): string | undefined {
  let value = raw;
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (column.type === 'email') {
    if (!isEmail(value)) return 'must be an e-mail address';
    value = normalizeEmail(value);
  }
  if (column.type === 'url') {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '' || /[ \t\n]/.test(value)) {
      return 'must be an http or https URL';
    }
  }
  if (column.type === 'enum') return (column.values ?? []).includes(value) ? undefined : 'must be one of the values';
  if (column.required && value === '' && column.type !== 'text') return 'must not be empty';
  // Lengths count the value as sent, as the server and the document do.
  const length = [...raw].length;
  if (column.min_length !== undefined && length < column.min_length) return `must be at least ${column.min_length} characters`;
  const max = maxLengthOf(column);
  if (max !== undefined && length > max) return `must be at most ${max} characters`;
  if (column.pattern) {
    const re = compilePattern(column.pattern);
    if (!re || !re.test(value)) return 'does not match the pattern';
  }
  return undefined;
}

function withinRange(column: SchemaColumn, value: number): string | undefined {
  if (column.min !== undefined && value < column.min) return `must be at least ${column.min}`;
  if (column.max !== undefined && value > column.max) return `must be at most ${column.max}`;
  return undefined;
}

function referenceProblems(doc: SchemaDocument, table: SchemaTable, column: SchemaColumn, at: string): SchemaProblems {
  const ref = column.references;
  if (!ref) return {};
  const problems: SchemaProblems = {};
  // The first table of a name is the one references reach, as on the server.
  const target = doc.tables.find((t) => t.name === ref.table);
  if (!ref.table) problems[`${at}.references.table`] = 'choose the table this column points at';
  else if (!target) problems[`${at}.references.table`] = `there is no table "${ref.table}"`;
  else if (target.external && !table.external) {
    problems[`${at}.references.table`] = 'cannot reference a table of an external database';
  } else {
    const keyType = target.id_type === 'uuid' ? 'uuid' : 'integer';
    if (column.type !== keyType) problems[`${at}.type`] ??= `must be ${keyType} to reference ${ref.table}.id`;
  }
  if (ref.on_delete !== undefined && !(ON_DELETE_ACTIONS as readonly string[]).includes(ref.on_delete)) {
    problems[`${at}.references.on_delete`] = `must be one of ${ON_DELETE_ACTIONS.join(', ')}`;
  } else if (ref.on_delete === 'set_null' && column.required) {
    problems[`${at}.references.on_delete`] = 'a required column cannot be set to null on delete';
  }
  return problems;
}

function authProblems(table: SchemaTable, at: string, authTables: string[]): SchemaProblems {
  if (!table.auth) return {};
  if (authTables[0] !== table.name) return { [`${at}.auth`]: `only one table can be the auth table ("${authTables[0]}" is)` };
  if (!table.columns.some((c) => c.name === 'email' && c.type === 'email')) {
    return { [`${at}.auth`]: 'an auth table needs a column named email of type email' };
  }
  if (!table.columns.some((c) => c.type === 'password')) {
    return { [`${at}.auth`]: 'an auth table needs a column of type password' };
  }
  return {};
}

/** A table marked junction links two tables through exactly two required references. */
function junctionProblems(table: SchemaTable, at: string): SchemaProblems {
  if (!table.junction) return {};
  if (table.auth) return { [`${at}.junction`]: 'an auth table cannot be a junction' };
  const ext = table.external;
  const maintained = (name: string) =>
    ext !== undefined &&
    (name === ext.primary_key || (name === 'created_at' && ext.has_created_at) || (name === 'updated_at' && ext.has_updated_at));
  const ends = table.columns.filter((c) => !maintained(c.name) && c.references && c.required);
  if (ends.length !== 2) return { [`${at}.junction`]: 'a junction needs exactly two required reference columns' };
  return {};
}

/** E-mail verification is a setting of the auth table alone (schema.checkEmailVerification). */
export function emailVerificationProblems(table: SchemaTable, at: string): SchemaProblems {
  const setting = table.email_verification;
  if (setting === undefined || setting === 'off') return {};
  if (!(EMAIL_VERIFICATION as readonly string[]).includes(setting)) {
    return { [`${at}.email_verification`]: 'must be off, optional or required' };
  }
  if (!table.auth) return { [`${at}.email_verification`]: 'is a setting of the auth table (the table with "auth": true)' };
  return {};
}

/** A cache lifetime is for tables anyone may read: a shared cache gives its answers to everyone (schema.checkCache). */
export function cacheProblems(table: SchemaTable, at: string): SchemaProblems {
  const problems: SchemaProblems = {};
  if (table.cache === undefined) return problems;
  const maxAge = table.cache.max_age;
  if (!Number.isInteger(maxAge) || maxAge < CACHE_MAX_AGE_MIN || maxAge > CACHE_MAX_AGE_MAX) {
    problems[`${at}.cache.max_age`] = `must be a whole number of seconds from ${CACHE_MAX_AGE_MIN} to ${CACHE_MAX_AGE_MAX}`;
  }
  if (table.permissions?.read !== 'public') {
    problems[`${at}.cache`] = 'needs the public read permission: a shared cache gives its answers to everyone';
  }
  return problems;
}

function permissionProblems(doc: SchemaDocument, table: SchemaTable, at: string): SchemaProblems {
  const problems: SchemaProblems = {};
  for (const op of OPERATIONS) {
    const level = table.permissions?.[op];
    if (level === undefined || (level as string) === '') continue;
    if (!(PERMISSION_LEVELS as readonly string[]).includes(level)) {
      problems[`${at}.permissions.${op}`] = `must be one of ${PERMISSION_LEVELS.join(', ')}`;
    } else if (level === 'owner' && !table.owner_column) {
      problems[`${at}.permissions.${op}`] = 'the owner level needs an owner column';
    }
  }
  if (table.owner_column) {
    const owner = table.columns.find((c) => c.name === table.owner_column);
    const target = owner?.references ? doc.tables.find((t) => t.name === owner.references?.table) : undefined;
    const authTable = doc.tables.find((t) => t.auth)?.name;
    if (!owner) problems[`${at}.owner_column`] = `there is no column "${table.owner_column}"`;
    else if (!authTable) problems[`${at}.owner_column`] = 'needs an auth table for end users to own rows';
    else if (!target?.auth) problems[`${at}.owner_column`] = `must reference the auth table "${authTable}"`;
  }
  return problems;
}

/**
 * A relation name must be unique on its table and differ from the table's
 * columns, or `include` and the embedded record would be ambiguous.
 */
function relationClashes(doc: SchemaDocument): SchemaProblems {
  const problems: SchemaProblems = {};
  const seen = new Map<string, string>(); // "table/relation" → path that defined it
  const claim = (table: string, relation: string, path: string) => {
    const key = `${table}/${relation}`;
    const columns = doc.tables.find((t) => t.name === table)?.columns ?? [];
    if ((SYSTEM_COLUMNS as readonly string[]).includes(relation)) {
      problems[path] = `the relation name "${relation}" on "${table}" is a system column; set a different name`;
    } else if (columns.some((c) => c.name === relation)) {
      problems[path] = `the relation name "${relation}" on "${table}" is also a column; set a different name`;
    } else if (seen.has(key)) {
      problems[path] = `the relation name "${relation}" is already used on "${table}"`;
    } else seen.set(key, path);
  };
  doc.tables.forEach((table, ti) => {
    table.columns.forEach((column, ci) => {
      if (column.references) claim(table.name, forwardRelationName(column), `tables[${ti}].columns[${ci}].relation`);
    });
  });
  doc.tables.forEach((table, ti) => {
    table.columns.forEach((column, ci) => {
      if (!column.references) return;
      claim(column.references.table, reverseRelationName(table, column), `tables[${ti}].columns[${ci}].reverse_relation`);
    });
  });
  return problems;
}

/** Problems under `prefix` (a table or column path) that no shown field claims. */
export function unclaimedProblems(problems: SchemaProblems, prefix: string, claimed: readonly string[]): string[] {
  return Object.entries(problems)
    .filter(([path]) => path.startsWith(`${prefix}.`) || path === prefix)
    .filter(([path]) => {
      const rest = path.slice(prefix.length + 1);
      return !claimed.some((field) => rest === field || rest.startsWith(`${field}.`) || rest.startsWith(`${field}[`));
    })
    .map(([path, message]) => (path === prefix ? message : `${path.slice(prefix.length + 1)}: ${message}`));
}

/** The message for one field, including problems of its sub-fields (`references.table`). */
export function problemAt(problems: SchemaProblems, path: string): string | undefined {
  const messages = Object.entries(problems)
    .filter(([p]) => p === path || p.startsWith(`${path}.`) || p.startsWith(`${path}[`))
    .map(([, m]) => m);
  return messages.length ? messages.join('; ') : undefined;
}

/** A path like `tables[1].columns[0].type` in words: `posts › author_id › type`. */
export function describePath(doc: SchemaDocument, path: string): string {
  const match = /^tables\[(\d+)\](?:\.columns\[(\d+)\])?(?:\.(.+))?$/.exec(path);
  if (!match) return path;
  const table = doc.tables[Number(match[1])];
  const parts = [`table ${table?.name || `#${Number(match[1]) + 1}`}`];
  if (match[2] !== undefined) {
    const column = table?.columns[Number(match[2])];
    parts.push(`column ${column?.name || `#${Number(match[2]) + 1}`}`);
  }
  if (match[3]) parts.push(match[3].replace(/_/g, ' '));
  return parts.join(' › ');
}

// Client-side checks of a schema document, mirroring CONTRACT 4.1 so the
// builder can flag problems as the user types. The server's validate endpoint
// remains the final word; both report problems keyed by the same paths
// (`tables[1].columns[0].type`).
import {
  COLUMN_TYPES,
  ID_TYPES,
  NUMERIC_TYPES,
  ON_DELETE_ACTIONS,
  OPERATIONS,
  PERMISSION_LEVELS,
  SYSTEM_COLUMNS,
  forwardRelationName,
  reverseRelationName,
  type SchemaColumn,
  type SchemaDocument,
  type SchemaTable,
} from '../schema/document';

export type SchemaProblems = Record<string, string>;

export const NAME_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;
export const RESERVED_TABLE_NAMES = ['auth', 'docs', 'openapi'];

export function nameProblem(name: string): string | undefined {
  if (name === '') return 'is required';
  if (name.startsWith('_')) return 'must not start with an underscore';
  if (name.length > 63) return 'must be at most 63 characters';
  if (!/^[a-z]/.test(name)) return 'must start with a lower-case letter';
  if (!NAME_PATTERN.test(name)) return 'may hold only lower-case letters, digits and underscores';
  return undefined;
}

export function validateDocument(doc: SchemaDocument): SchemaProblems {
  const problems: SchemaProblems = {};
  const tableNames = doc.tables.map((t) => t.name);
  const authTables = doc.tables.filter((t) => t.auth).map((t) => t.name);

  doc.tables.forEach((table, ti) => {
    const at = `tables[${ti}]`;
    const nameIssue = tableNameProblem(table.name, tableNames, ti);
    if (nameIssue) problems[`${at}.name`] = nameIssue;
    if (table.id_type !== undefined && !(ID_TYPES as readonly string[]).includes(table.id_type)) {
      problems[`${at}.id_type`] = `must be one of ${ID_TYPES.join(', ')}`;
    }
    table.columns.forEach((column, ci) => {
      Object.assign(problems, columnProblems(doc, table, column, ci, `${at}.columns[${ci}]`));
    });
    Object.assign(problems, authProblems(table, at, authTables));
    Object.assign(problems, permissionProblems(table, at, authTables[0]));
  });
  Object.assign(problems, relationClashes(doc));
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
  } else if (table.columns.findIndex((c) => c.name === column.name) !== index) {
    problems[`${at}.name`] = `another column of "${table.name}" is already named "${column.name}"`;
  }

  const known = (COLUMN_TYPES as readonly string[]).includes(column.type) || column.type === 'passthrough';
  if (!known) problems[`${at}.type`] = `unknown type "${column.type}"`;

  if (column.type === 'enum') {
    const values = column.values ?? [];
    if (values.length === 0) problems[`${at}.values`] = 'an enum needs at least one value';
    else if (values.some((v) => v === '')) problems[`${at}.values`] = 'values must not be empty';
    else if (new Set(values).size !== values.length) problems[`${at}.values`] = 'values must be distinct';
  } else if (column.values !== undefined) {
    problems[`${at}.values`] = 'only enum columns take values';
  }

  Object.assign(problems, rangeProblems(column, at));
  const defaultIssue = defaultProblem(column);
  if (defaultIssue) problems[`${at}.default`] = defaultIssue;

  if (column.pattern !== undefined) {
    try {
      new RegExp(column.pattern);
    } catch {
      problems[`${at}.pattern`] = 'is not a valid regular expression';
    }
  }

  if (column.references) {
    Object.assign(problems, referenceProblems(doc, column, at));
  } else if (column.relation || column.reverse_relation) {
    problems[`${at}.relation`] = 'only a column with a reference names a relation';
  }
  return problems;
}

function rangeProblems(column: SchemaColumn, at: string): SchemaProblems {
  const problems: SchemaProblems = {};
  const numeric = NUMERIC_TYPES.includes(column.type);
  const texty = ['text', 'email', 'url', 'password'].includes(column.type);
  if ((column.min !== undefined || column.max !== undefined) && !numeric) {
    problems[`${at}.${column.min !== undefined ? 'min' : 'max'}`] = 'min and max apply to numeric columns';
  }
  if (column.min !== undefined && column.max !== undefined && column.min > column.max) {
    problems[`${at}.min`] = 'must not be greater than max';
  }
  for (const key of ['min_length', 'max_length'] as const) {
    const v = column[key];
    if (v === undefined) continue;
    if (!texty) problems[`${at}.${key}`] = 'lengths apply to text columns';
    else if (!Number.isInteger(v) || v < 0) problems[`${at}.${key}`] = 'must be a whole number, 0 or more';
  }
  if (column.max_length === 0) problems[`${at}.max_length`] = 'must be at least 1';
  if (column.min_length !== undefined && column.max_length !== undefined && column.min_length > column.max_length) {
    problems[`${at}.min_length`] = 'must not be greater than max_length';
  }
  if (column.pattern !== undefined && !['text', 'email', 'url'].includes(column.type)) {
    problems[`${at}.pattern`] = 'a pattern applies to text columns';
  }
  return problems;
}

function defaultProblem(column: SchemaColumn): string | undefined {
  const value = column.default;
  if (value === undefined || value === null) return undefined;
  switch (column.type) {
    case 'password':
      return 'a password column takes no default';
    case 'integer':
      return Number.isInteger(value) ? withinRange(column, value as number) : 'must be a whole number';
    case 'number':
    case 'decimal':
      return typeof value === 'number' && Number.isFinite(value) ? withinRange(column, value) : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'enum':
      return typeof value === 'string' && (column.values ?? []).includes(value) ? undefined : 'must be one of the values';
    case 'json':
      return undefined;
    case 'email':
      return typeof value === 'string' && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value) ? undefined : 'must be an e-mail address';
    case 'uuid':
      return typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
        ? undefined
        : 'must be a UUID';
    default:
      return typeof value === 'string' ? undefined : 'must be text';
  }
}

function withinRange(column: SchemaColumn, value: number): string | undefined {
  if (column.min !== undefined && value < column.min) return `must be at least ${column.min}`;
  if (column.max !== undefined && value > column.max) return `must be at most ${column.max}`;
  return undefined;
}

function referenceProblems(doc: SchemaDocument, column: SchemaColumn, at: string): SchemaProblems {
  const ref = column.references!;
  const target = doc.tables.find((t) => t.name === ref.table);
  if (!ref.table) return { [`${at}.references.table`]: 'choose the table this column points at' };
  if (!target) return { [`${at}.references.table`]: `there is no table "${ref.table}"` };
  const problems: SchemaProblems = {};
  const keyType = target.id_type === 'uuid' ? 'uuid' : 'integer';
  if (column.type !== keyType) problems[`${at}.type`] = `must be ${keyType} to reference ${ref.table}.id`;
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

function permissionProblems(table: SchemaTable, at: string, authTable: string | undefined): SchemaProblems {
  const problems: SchemaProblems = {};
  for (const op of OPERATIONS) {
    const level = table.permissions?.[op];
    if (level === undefined) continue;
    if (!(PERMISSION_LEVELS as readonly string[]).includes(level)) {
      problems[`${at}.permissions.${op}`] = `must be one of ${PERMISSION_LEVELS.join(', ')}`;
    } else if (level === 'owner' && !table.owner_column) {
      problems[`${at}.permissions.${op}`] = 'the owner level needs an owner column';
    }
  }
  const usesOwner = OPERATIONS.some((op) => table.permissions?.[op] === 'owner');
  if (table.owner_column !== undefined) {
    const owner = table.columns.find((c) => c.name === table.owner_column);
    if (!owner) problems[`${at}.owner_column`] = `there is no column "${table.owner_column}"`;
    else if (!authTable) problems[`${at}.owner_column`] = 'needs an auth table for end users to own rows';
    else if (owner.references?.table !== authTable) {
      problems[`${at}.owner_column`] = `must reference the auth table "${authTable}"`;
    }
  } else if (usesOwner) {
    problems[`${at}.owner_column`] = 'choose the column that holds the owner';
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

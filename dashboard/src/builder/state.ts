// The schema builder's state as a pure reducer: the draft being edited (with
// stable keys for React), the published schema (to set `renamed_from` on
// renames) and the last saved document (to show unsaved changes).
import { stableJson } from '../lib/stableJson';
import { forwardRelationName, relationNamesOf } from '../schema/document';
import type {
  Operation,
  PermissionLevel,
  Position,
  Reference,
  SchemaColumn,
  SchemaDocument,
  SchemaTable,
} from '../schema/document';
import { withTypeConstraints } from './columnRules';

export interface DraftColumn extends SchemaColumn {
  key: string;
  /** The key of the referenced table, so references follow it through renames. */
  targetKey?: string;
}

export interface DraftTable extends Omit<SchemaTable, 'columns'> {
  key: string;
  columns: DraftColumn[];
}

export interface BuilderState {
  tables: DraftTable[];
  published: SchemaDocument | null;
  savedJson: string;
  selectedTableKey: string | null;
  nextKey: number;
}

export type TableOptions = Pick<
  SchemaTable,
  'auth' | 'id_type' | 'owner_column' | 'description' | 'junction' | 'realtime' | 'cache' | 'email_verification'
>;

export type BuilderAction =
  | { type: 'load'; draft: SchemaDocument; published: SchemaDocument | null }
  | { type: 'setPublished'; published: SchemaDocument | null }
  | { type: 'replaceDocument'; document: SchemaDocument }
  | { type: 'markSaved'; document: SchemaDocument }
  | { type: 'selectTable'; tableKey: string | null }
  | { type: 'selectTableAt'; index: number }
  | { type: 'addTable'; name?: string }
  | { type: 'renameTable'; tableKey: string; name: string }
  | { type: 'deleteTable'; tableKey: string }
  | { type: 'setTableOptions'; tableKey: string; options: Partial<TableOptions> }
  | { type: 'setPermission'; tableKey: string; operation: Operation; level: PermissionLevel | undefined }
  | { type: 'moveTable'; tableKey: string; position: Position }
  | { type: 'addColumn'; tableKey: string; column?: Partial<SchemaColumn> }
  | { type: 'renameColumn'; tableKey: string; columnKey: string; name: string }
  | { type: 'setColumnType'; tableKey: string; columnKey: string; columnType: string }
  | { type: 'updateColumn'; tableKey: string; columnKey: string; patch: Partial<SchemaColumn> }
  | { type: 'setReference'; tableKey: string; columnKey: string; reference: Reference | undefined }
  | { type: 'moveColumn'; tableKey: string; columnKey: string; toIndex: number }
  | { type: 'deleteColumn'; tableKey: string; columnKey: string }
  | { type: 'addRelationship'; tableKey: string; targetTable: string; columnKey?: string };

export const emptyBuilderState: BuilderState = {
  tables: [],
  published: null,
  savedJson: stableJson({ tables: [] }),
  selectedTableKey: null,
  nextKey: 1,
};

/** The document to send to the server: the draft without the builder's keys. */
export function toDocument(state: Pick<BuilderState, 'tables'>): SchemaDocument {
  return {
    tables: state.tables.map(({ key: _key, columns, ...table }) => ({
      ...cleanObject(table),
      columns: columns.map(({ key: _ckey, targetKey: _target, ...column }) => cleanObject(column)),
    })) as SchemaTable[],
  };
}

export function isDirty(state: BuilderState): boolean {
  return stableJson(toDocument(state)) !== state.savedJson;
}

/** True when the saved draft differs from the published schema in anything but layout. */
export function hasUnpublishedChanges(saved: SchemaDocument, published: SchemaDocument | null): boolean {
  if (!published) return saved.tables.length > 0;
  return stableJson(withoutLayout(saved)) !== stableJson(withoutLayout(published));
}

/**
 * Why the builder shows a column without letting the user change it, if it
 * does: a passthrough column of a fronted database (a type Tablesmith does
 * not model, served read-only and never altered) or a fronted table's own
 * primary key (it belongs to the database).
 */
export function readOnlyReason(table: Pick<SchemaTable, 'external'>, column: Pick<SchemaColumn, 'name' | 'type' | 'pg_type'>): string | undefined {
  if (column.type === 'passthrough') {
    return `Database type ${column.pg_type || 'unknown'}: served read-only. Tablesmith never alters or drops it; change it in the database, then refresh.`;
  }
  if (table.external && column.name === table.external.primary_key) {
    return 'The primary key of the database table: change it in the database, then refresh.';
  }
  return undefined;
}

/** The document the builder holds right after loading this draft, as stable JSON (to match a server verdict to it). */
export function loadedDocumentJson(draft: SchemaDocument, published: SchemaDocument | null): string {
  return stableJson(toDocument(builderReducer(emptyBuilderState, { type: 'load', draft, published })));
}

export function savedDocument(state: BuilderState): SchemaDocument {
  return JSON.parse(state.savedJson) as SchemaDocument;
}

export function selectedTable(state: BuilderState): DraftTable | undefined {
  return state.tables.find((t) => t.key === state.selectedTableKey);
}

export function builderReducer(state: BuilderState, action: BuilderAction): BuilderState {
  switch (action.type) {
    case 'load': {
      const loaded = fromDocument(settleRenames(action.draft, action.published), 1);
      return {
        tables: loaded.tables,
        published: action.published,
        savedJson: stableJson(toDocument(loaded)),
        selectedTableKey: loaded.tables[0]?.key ?? null,
        nextKey: loaded.nextKey,
      };
    }
    case 'setPublished':
      return { ...state, published: action.published };
    case 'replaceDocument': {
      const selectedName = selectedTable(state)?.name;
      const loaded = fromDocument(action.document, state.nextKey);
      const selected = loaded.tables.find((t) => t.name === selectedName) ?? loaded.tables[0];
      return { ...state, tables: loaded.tables, nextKey: loaded.nextKey, selectedTableKey: selected?.key ?? null };
    }
    case 'markSaved':
      return { ...state, savedJson: stableJson(action.document) };
    case 'selectTable':
      return { ...state, selectedTableKey: action.tableKey };
    case 'selectTableAt': {
      const table = state.tables[action.index];
      return table ? { ...state, selectedTableKey: table.key } : state;
    }
    case 'addTable': {
      const name = uniqueName(action.name ?? 'table', state.tables.map((t) => t.name));
      const key = `t${state.nextKey}`;
      const table: DraftTable = { key, name, columns: [], position: nextFreePosition(state.tables) };
      return { ...state, tables: [...state.tables, table], selectedTableKey: key, nextKey: state.nextKey + 1 };
    }
    case 'renameTable':
      return renameTable(state, action.tableKey, action.name);
    case 'deleteTable': {
      const doomed = findTable(state, action.tableKey);
      if (!doomed) return state;
      const tables = state.tables
        .filter((t) => t.key !== action.tableKey)
        .map((t) => mapColumns(t, (c) => (c.targetKey === doomed.key ? dropReference(c) : c)));
      const selectedTableKey = state.selectedTableKey === action.tableKey ? (tables[0]?.key ?? null) : state.selectedTableKey;
      return { ...state, tables, selectedTableKey };
    }
    case 'setTableOptions':
      return setTableOptions(state, action.tableKey, action.options);
    case 'setPermission':
      return updateTable(state, action.tableKey, (t) => {
        const permissions = { ...t.permissions, [action.operation]: action.level };
        if (action.level === undefined) delete permissions[action.operation];
        return { ...t, permissions: Object.keys(permissions).length ? permissions : undefined };
      });
    case 'moveTable':
      return updateTable(state, action.tableKey, (t) => ({
        ...t,
        position: { x: Math.round(action.position.x), y: Math.round(action.position.y) },
      }));
    case 'addColumn': {
      const key = `c${state.nextKey}`;
      const next = updateTable(state, action.tableKey, (t) => {
        const name = uniqueName(action.column?.name ?? 'column', t.columns.map((c) => c.name));
        const column: DraftColumn = { type: 'text', ...action.column, name, key };
        return { ...t, columns: [...t.columns, column] };
      });
      return next === state ? state : { ...next, nextKey: state.nextKey + 1 };
    }
    case 'renameColumn':
      return renameColumn(state, action.tableKey, action.columnKey, action.name);
    case 'setColumnType':
      return updateColumn(state, action.tableKey, action.columnKey, (c) => {
        if (c.type === action.columnType) return c;
        const { default: _dropped, backfill: _droppedBackfill, ...rest } = c;
        const changed = withTypeConstraints({ ...rest, type: action.columnType });
        return { ...changed, key: c.key } as DraftColumn;
      });
    case 'updateColumn':
      return updateColumn(state, action.tableKey, action.columnKey, (c) => {
        const next = cleanObject({ ...c, ...action.patch });
        if ('references' in action.patch) {
          next.targetKey = state.tables.find((t) => t.name === action.patch.references?.table)?.key;
        }
        return next;
      });
    case 'setReference':
      return setReference(state, action.tableKey, action.columnKey, action.reference);
    case 'moveColumn':
      return updateTable(state, action.tableKey, (t) => {
        const from = t.columns.findIndex((c) => c.key === action.columnKey);
        const to = Math.max(0, Math.min(t.columns.length - 1, action.toIndex));
        if (from < 0 || from === to) return t;
        const columns = [...t.columns];
        const [moved] = columns.splice(from, 1);
        if (!moved) return t;
        columns.splice(to, 0, moved);
        return { ...t, columns };
      });
    case 'deleteColumn':
      return updateTable(state, action.tableKey, (t) => {
        const doomed = t.columns.find((c) => c.key === action.columnKey);
        if (!doomed || readOnlyReason(t, doomed)) return t;
        return {
          ...t,
          columns: t.columns.filter((c) => c.key !== action.columnKey),
          owner_column: t.owner_column === doomed.name ? undefined : t.owner_column,
        };
      });
    case 'addRelationship':
      return addRelationship(state, action.tableKey, action.targetTable, action.columnKey);
  }
}

function renameTable(state: BuilderState, tableKey: string, name: string): BuilderState {
  const table = findTable(state, tableKey);
  if (!table || table.name === name) return state;
  const origin = publishedTableOrigin(state.published, table);
  const renamed: DraftTable = { ...table, name, renamed_from: origin && origin !== name ? origin : undefined };
  const tables = state.tables.map((t) => {
    const current = t.key === tableKey ? renamed : t;
    return mapColumns(current, (c) => {
      if (!c.references) return c;
      if (c.targetKey === tableKey) return { ...c, references: { ...c.references, table: name } };
      // A reference to a table that did not exist yet binds to it now.
      if (!c.targetKey && c.references.table === name) return { ...c, targetKey: tableKey };
      return c;
    });
  });
  return { ...state, tables };
}

function renameColumn(state: BuilderState, tableKey: string, columnKey: string, name: string): BuilderState {
  const table = findTable(state, tableKey);
  const column = table?.columns.find((c) => c.key === columnKey);
  if (!table || !column || column.name === name || readOnlyReason(table, column)) return state;
  const publishedTable = findPublishedTable(state.published, publishedTableOrigin(state.published, table));
  const origin = publishedColumnOrigin(publishedTable, column);
  return updateTable(state, tableKey, (t) => ({
    ...t,
    owner_column: t.owner_column === column.name ? name : t.owner_column,
    columns: t.columns.map((c) =>
      c.key === columnKey ? { ...c, name, renamed_from: origin && origin !== name ? origin : undefined } : c,
    ),
  }));
}

function setTableOptions(state: BuilderState, tableKey: string, options: Partial<TableOptions>): BuilderState {
  const table = findTable(state, tableKey);
  if (!table) return state;
  const next = updateTable(state, tableKey, (t) => cleanObject({ ...t, ...options }));
  if (options.id_type === undefined || options.id_type === table.id_type) return next;
  // Foreign keys must have the type of the id they point at.
  const keyType = options.id_type === 'uuid' ? 'uuid' : 'integer';
  return {
    ...next,
    tables: next.tables.map((t) =>
      mapColumns(t, (c) => (c.targetKey === tableKey ? { ...c, type: keyType } : c)),
    ),
  };
}

function setReference(state: BuilderState, tableKey: string, columnKey: string, reference: Reference | undefined): BuilderState {
  return updateColumn(state, tableKey, columnKey, (c) => {
    if (!reference) return dropReference(c);
    const target = state.tables.find((t) => t.name === reference.table);
    const type = target?.id_type === 'uuid' ? 'uuid' : 'integer';
    const { default: _dropped, backfill: _droppedBackfill, ...rest } = c;
    const withRef = { ...rest, type, references: { on_delete: 'restrict' as const, ...reference } };
    return { ...(withTypeConstraints(withRef) as DraftColumn), key: c.key, targetKey: target?.key };
  });
}

function addRelationship(state: BuilderState, tableKey: string, targetTable: string, columnKey?: string): BuilderState {
  if (columnKey) return setReference(state, tableKey, columnKey, { table: targetTable, on_delete: 'restrict' });
  const target = state.tables.find((t) => t.name === targetTable);
  const table = findTable(state, tableKey);
  if (!target || !table) return state;
  const name = uniqueName(`${singular(targetTable)}_id`, table.columns.map((c) => c.name));
  const key = `c${state.nextKey}`;
  const column: DraftColumn = {
    key,
    name,
    type: target.id_type === 'uuid' ? 'uuid' : 'integer',
    references: { table: targetTable, on_delete: 'restrict' },
    targetKey: target.key,
  };
  // A second key from the same table to the same target would give the
  // target two relations named after this table: name this one apart.
  const reverseTaken = relationNamesOf(toDocument(state), targetTable).includes(table.name);
  if (reverseTaken) column.reverse_relation = `${table.name}_as_${forwardRelationName(column)}`;
  const next = updateTable(state, tableKey, (t) => ({ ...t, columns: [...t.columns, column] }));
  return { ...next, nextKey: state.nextKey + 1, selectedTableKey: tableKey };
}

/** The published name this draft table stands for, if it has one. */
export function publishedTableOrigin(published: SchemaDocument | null, table: { name: string; renamed_from?: string }): string | undefined {
  if (!published) return undefined;
  if (table.renamed_from && published.tables.some((t) => t.name === table.renamed_from)) return table.renamed_from;
  return published.tables.some((t) => t.name === table.name) ? table.name : undefined;
}

export function publishedColumnOrigin(publishedTable: SchemaTable | undefined, column: SchemaColumn): string | undefined {
  if (!publishedTable) return undefined;
  const has = (name: string) => publishedTable.columns.some((c) => c.name === name);
  if (column.renamed_from && has(column.renamed_from)) return column.renamed_from;
  return has(column.name) ? column.name : undefined;
}

export function findPublishedTable(published: SchemaDocument | null, name: string | undefined): SchemaTable | undefined {
  return name ? published?.tables.find((t) => t.name === name) : undefined;
}

/**
 * Drops `renamed_from` markers that a publish has already carried out, so a
 * draft loaded after generate does not claim an old rename again.
 */
export function settleRenames(draft: SchemaDocument, published: SchemaDocument | null): SchemaDocument {
  if (!published) return draft;
  const publishedNames = new Set(published.tables.map((t) => t.name));
  return {
    tables: draft.tables.map((table) => {
      const tableDone = table.renamed_from && !publishedNames.has(table.renamed_from) && publishedNames.has(table.name);
      const source = published.tables.find((t) => t.name === (tableDone ? table.name : (table.renamed_from ?? table.name)));
      const columnNames = new Set(source?.columns.map((c) => c.name) ?? []);
      return cleanObject({
        ...table,
        renamed_from: tableDone ? undefined : table.renamed_from,
        columns: table.columns.map((column) => {
          const done = column.renamed_from && !columnNames.has(column.renamed_from) && columnNames.has(column.name);
          return done ? cleanObject({ ...column, renamed_from: undefined }) : column;
        }),
      });
    }),
  };
}

function fromDocument(doc: SchemaDocument, firstKey: number): { tables: DraftTable[]; nextKey: number } {
  let next = firstKey;
  const tables = (doc.tables ?? []).map((table) => {
    const key = `t${next++}`;
    const columns: DraftColumn[] = (table.columns ?? []).map((column) => ({ ...column, key: `c${next++}` }));
    return { ...table, key, columns };
  });
  const keyOf = new Map(tables.map((t) => [t.name, t.key]));
  for (const table of tables) {
    for (const column of table.columns) {
      if (column.references) column.targetKey = keyOf.get(column.references.table);
    }
  }
  return { tables, nextKey: next };
}

function withoutLayout(doc: SchemaDocument): SchemaDocument {
  return {
    tables: doc.tables.map(({ position: _p, renamed_from: _r, ...t }) => ({
      ...t,
      columns: t.columns.map(({ renamed_from: _cr, ...c }) => c),
    })),
  };
}

function findTable(state: BuilderState, tableKey: string): DraftTable | undefined {
  return state.tables.find((t) => t.key === tableKey);
}

function updateTable(state: BuilderState, tableKey: string, change: (t: DraftTable) => DraftTable): BuilderState {
  if (!findTable(state, tableKey)) return state;
  return { ...state, tables: state.tables.map((t) => (t.key === tableKey ? change(t) : t)) };
}

function updateColumn(
  state: BuilderState,
  tableKey: string,
  columnKey: string,
  change: (c: DraftColumn) => DraftColumn,
): BuilderState {
  return updateTable(state, tableKey, (t) => ({
    ...t,
    // Read-only columns of a fronted database never change here.
    columns: t.columns.map((c) => (c.key === columnKey && !readOnlyReason(t, c) ? change(c) : c)),
  }));
}

function mapColumns(table: DraftTable, change: (c: DraftColumn) => DraftColumn): DraftTable {
  let changed = false;
  const columns = table.columns.map((c) => {
    const next = change(c);
    if (next !== c) changed = true;
    return next;
  });
  return changed ? { ...table, columns } : table;
}

function dropReference(column: DraftColumn): DraftColumn {
  const { references: _r, relation: _rel, reverse_relation: _rev, targetKey: _t, ...rest } = column;
  return rest;
}

/** Removes undefined fields, false flags and empty lists so the document stays minimal. */
function cleanObject<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || (v === false && key !== 'default')) continue;
    if (Array.isArray(v) && v.length === 0 && key !== 'columns' && key !== 'values') continue;
    out[key] = v;
  }
  return out as T;
}

export function uniqueName(base: string, taken: string[]): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let i = 2; ; i++) {
    const candidate = `${base}_${i}`;
    if (!used.has(candidate)) return candidate;
  }
}

export function singular(name: string): string {
  if (name.endsWith('ies') && name.length > 3) return `${name.slice(0, -3)}y`;
  if (name.endsWith('ses') || name.endsWith('xes')) return name.slice(0, -2);
  if (/(ss|us|is)$/.test(name)) return name;
  if (name.endsWith('s') && name.length > 1) return name.slice(0, -1);
  return name;
}

const GRID_X = 340;
const GRID_Y = 300;

/** A free slot on a three-wide grid for a new table. */
export function nextFreePosition(tables: Pick<SchemaTable, 'position'>[]): Position {
  const taken = new Set(tables.map((t) => (t.position ? `${t.position.x},${t.position.y}` : '')));
  for (let i = 0; ; i++) {
    const p = { x: 40 + (i % 3) * GRID_X, y: 40 + Math.floor(i / 3) * GRID_Y };
    if (!taken.has(`${p.x},${p.y}`)) return p;
  }
}


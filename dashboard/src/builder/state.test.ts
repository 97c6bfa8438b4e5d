import { describe, expect, it } from 'vitest';
import { stableJson } from '../lib/stableJson';
import type { SchemaDocument } from '../schema/document';
import {
  builderReducer,
  emptyBuilderState,
  hasUnpublishedChanges,
  isDirty,
  loadedDocumentJson,
  readOnlyReason,
  settleRenames,
  singular,
  toDocument,
  type BuilderAction,
  type BuilderState,
} from './state';
import { nth } from '../lib/nth';

const published: SchemaDocument = {
  tables: [
    {
      name: 'users',
      auth: true,
      columns: [
        { name: 'email', type: 'email', required: true, unique: true },
        { name: 'password_hash', type: 'password', required: true },
      ],
    },
    {
      name: 'posts',
      columns: [
        { name: 'title', type: 'text', required: true },
        { name: 'author_id', type: 'integer', references: { table: 'users', on_delete: 'cascade' } },
      ],
    },
  ],
};

function run(state: BuilderState, ...actions: BuilderAction[]): BuilderState {
  return actions.reduce(builderReducer, state);
}

function loaded(draft: SchemaDocument = published, pub: SchemaDocument | null = published): BuilderState {
  return run(emptyBuilderState, { type: 'load', draft, published: pub });
}

function tableKey(state: BuilderState, name: string): string {
  const table = state.tables.find((t) => t.name === name);
  if (!table) throw new Error(`no table ${name}`);
  return table.key;
}

function columnKey(state: BuilderState, table: string, column: string): string {
  const found = state.tables.find((t) => t.name === table)?.columns.find((c) => c.name === column);
  if (!found) throw new Error(`no column ${table}.${column}`);
  return found.key;
}

describe('loading and saving', () => {
  it('a freshly loaded draft has no unsaved changes and round-trips to the same document', () => {
    const state = loaded();
    expect(isDirty(state)).toBe(false);
    expect(toDocument(state)).toEqual(published);
    expect(state.selectedTableKey).toBe(tableKey(state, 'users'));
  });

  it('the document sent to the server carries no builder keys', () => {
    const json = JSON.stringify(toDocument(loaded()));
    expect(json).not.toContain('"key"');
  });

  it('an edit makes the draft dirty until it is marked saved', () => {
    let state = loaded();
    state = run(state, { type: 'addColumn', tableKey: tableKey(state, 'posts'), column: { name: 'body' } });
    expect(isDirty(state)).toBe(true);
    state = run(state, { type: 'markSaved', document: toDocument(state) });
    expect(isDirty(state)).toBe(false);
  });

  it('moving a table is an unsaved change but not an unpublished one', () => {
    let state = loaded();
    state = run(state, { type: 'moveTable', tableKey: tableKey(state, 'users'), position: { x: 10.4, y: 99.6 } });
    expect(isDirty(state)).toBe(true);
    expect(state.tables[0]?.position).toEqual({ x: 10, y: 100 });
    expect(hasUnpublishedChanges(toDocument(state), published)).toBe(false);
  });

  it('a schema never published has unpublished changes once it has a table', () => {
    expect(hasUnpublishedChanges({ tables: [] }, null)).toBe(false);
    expect(hasUnpublishedChanges(published, null)).toBe(true);
  });
});

describe('tables', () => {
  it('adds tables with unique names, selects the new one and places it on a free grid slot', () => {
    let state = run(emptyBuilderState, { type: 'addTable' }, { type: 'addTable' });
    expect(state.tables.map((t) => t.name)).toEqual(['table', 'table_2']);
    expect(state.selectedTableKey).toBe(state.tables[1]?.key);
    expect(state.tables[0]?.position).not.toEqual(state.tables[1]?.position);
    state = run(state, { type: 'addTable', name: 'users' });
    expect(state.tables[2]?.name).toBe('users');
  });

  it('renaming a published table sets renamed_from and updates references to it', () => {
    let state = loaded();
    state = run(state, { type: 'renameTable', tableKey: tableKey(state, 'users'), name: 'members' });
    const doc = toDocument(state);
    expect(doc.tables[0]).toMatchObject({ name: 'members', renamed_from: 'users' });
    expect(doc.tables[1]?.columns[1]?.references).toEqual({ table: 'members', on_delete: 'cascade' });
  });

  it('references follow a table through a rename that passes another table\'s name', () => {
    let state = loaded();
    const key = tableKey(state, 'posts');
    state = run(state, { type: 'addTable', name: 'comments' });
    state = run(state, { type: 'addRelationship', tableKey: tableKey(state, 'comments'), targetTable: 'posts' });
    for (const name of ['user', 'users', 'users2']) state = run(state, { type: 'renameTable', tableKey: key, name });
    const doc = toDocument(state);
    expect(doc.tables[1]?.columns[1]?.references?.table).toBe('users');
    expect(doc.tables[2]?.columns[0]?.references?.table).toBe('users2');
  });

  it('a reference to a missing table binds when a table gets that name', () => {
    let state = loaded();
    state = run(state, { type: 'updateColumn', tableKey: tableKey(state, 'posts'), columnKey: columnKey(state, 'posts', 'author_id'), patch: { references: { table: 'people' } } });
    state = run(state, { type: 'addTable' });
    const added = nth(state.tables, 2).key;
    state = run(state, { type: 'renameTable', tableKey: added, name: 'people' }, { type: 'renameTable', tableKey: added, name: 'persons' });
    expect(toDocument(state).tables[1]?.columns[1]?.references?.table).toBe('persons');
  });

  it('renaming twice keeps the published name, and renaming back clears renamed_from', () => {
    let state = loaded();
    const key = tableKey(state, 'users');
    state = run(state, { type: 'renameTable', tableKey: key, name: 'members' }, { type: 'renameTable', tableKey: key, name: 'people' });
    expect(toDocument(state).tables[0]?.renamed_from).toBe('users');
    state = run(state, { type: 'renameTable', tableKey: key, name: 'users' });
    expect(toDocument(state).tables[0]).not.toHaveProperty('renamed_from');
  });

  it('renaming a table that was never published sets no renamed_from', () => {
    let state = run(loaded(), { type: 'addTable', name: 'tags' });
    state = run(state, { type: 'renameTable', tableKey: tableKey(state, 'tags'), name: 'labels' });
    expect(toDocument(state).tables[2]).toEqual({ name: 'labels', columns: [], position: expect.any(Object) });
  });

  it('deleting a table removes the references that pointed at it but keeps the columns', () => {
    let state = loaded();
    state = run(state, { type: 'deleteTable', tableKey: tableKey(state, 'users') });
    expect(toDocument(state)).toEqual({
      tables: [
        {
          name: 'posts',
          columns: [
            { name: 'title', type: 'text', required: true },
            { name: 'author_id', type: 'integer' },
          ],
        },
      ],
    });
    expect(state.selectedTableKey).toBe(tableKey(state, 'posts'));
  });

  it('switching a table to uuid ids retypes the foreign keys that point at it', () => {
    let state = loaded();
    state = run(state, { type: 'setTableOptions', tableKey: tableKey(state, 'users'), options: { id_type: 'uuid' } });
    expect(toDocument(state).tables[1]?.columns[1]?.type).toBe('uuid');
  });

  it('turning auth off removes the flag from the document', () => {
    let state = loaded();
    state = run(state, { type: 'setTableOptions', tableKey: tableKey(state, 'users'), options: { auth: false } });
    expect(toDocument(state).tables[0]).not.toHaveProperty('auth');
  });

  it('sets and clears permissions per operation', () => {
    let state = loaded();
    const key = tableKey(state, 'posts');
    state = run(state, { type: 'setPermission', tableKey: key, operation: 'read', level: 'public' });
    expect(toDocument(state).tables[1]?.permissions).toEqual({ read: 'public' });
    state = run(state, { type: 'setPermission', tableKey: key, operation: 'read', level: undefined });
    expect(toDocument(state).tables[1]).not.toHaveProperty('permissions');
  });
});

describe('columns', () => {
  it('adds a text column with a unique name', () => {
    let state = loaded();
    const key = tableKey(state, 'posts');
    state = run(state, { type: 'addColumn', tableKey: key }, { type: 'addColumn', tableKey: key });
    expect(toDocument(state).tables[1]?.columns.slice(2)).toEqual([
      { name: 'column', type: 'text' },
      { name: 'column_2', type: 'text' },
    ]);
  });

  it('renaming a published column sets renamed_from, also after its table was renamed', () => {
    let state = loaded();
    state = run(state, { type: 'renameTable', tableKey: tableKey(state, 'posts'), name: 'articles' });
    state = run(state, { type: 'renameColumn', tableKey: tableKey(state, 'articles'), columnKey: columnKey(state, 'articles', 'title'), name: 'headline' });
    expect(toDocument(state).tables[1]?.columns[0]).toEqual({ name: 'headline', type: 'text', required: true, renamed_from: 'title' });
  });

  it('renaming a new column sets no renamed_from', () => {
    let state = loaded();
    const key = tableKey(state, 'posts');
    state = run(state, { type: 'addColumn', tableKey: key, column: { name: 'body' } });
    state = run(state, { type: 'renameColumn', tableKey: key, columnKey: columnKey(state, 'posts', 'body'), name: 'content' });
    expect(toDocument(state).tables[1]?.columns[2]).toEqual({ name: 'content', type: 'text' });
  });

  it('renaming the owner column keeps owner_column pointing at it', () => {
    let state = loaded();
    const key = tableKey(state, 'posts');
    state = run(state, { type: 'setTableOptions', tableKey: key, options: { owner_column: 'author_id' } });
    state = run(state, { type: 'renameColumn', tableKey: key, columnKey: columnKey(state, 'posts', 'author_id'), name: 'writer_id' });
    expect(toDocument(state).tables[1]?.owner_column).toBe('writer_id');
  });

  it('changing the type drops constraints the new type does not take, and the default', () => {
    let state = loaded();
    const key = tableKey(state, 'posts');
    const col = columnKey(state, 'posts', 'title');
    state = run(state, { type: 'updateColumn', tableKey: key, columnKey: col, patch: { max_length: 80, searchable: true, default: 'x' } });
    state = run(state, { type: 'setColumnType', tableKey: key, columnKey: col, columnType: 'integer' });
    expect(toDocument(state).tables[1]?.columns[0]).toEqual({ name: 'title', type: 'integer', required: true });
  });

  it('an enum keeps its values, a boolean keeps a false default', () => {
    let state = loaded();
    const key = tableKey(state, 'posts');
    state = run(state, { type: 'addColumn', tableKey: key, column: { name: 'status', type: 'enum', values: ['draft', 'live'] } });
    state = run(state, { type: 'addColumn', tableKey: key, column: { name: 'pinned', type: 'boolean', default: false } });
    expect(toDocument(state).tables[1]?.columns.slice(2)).toEqual([
      { name: 'status', type: 'enum', values: ['draft', 'live'] },
      { name: 'pinned', type: 'boolean', default: false },
    ]);
  });

  it('a patch with undefined removes the constraint', () => {
    let state = loaded();
    const key = tableKey(state, 'posts');
    const col = columnKey(state, 'posts', 'title');
    state = run(state, { type: 'updateColumn', tableKey: key, columnKey: col, patch: { required: undefined } });
    expect(toDocument(state).tables[1]?.columns[0]).toEqual({ name: 'title', type: 'text' });
  });

  it('reorders columns within bounds', () => {
    let state = loaded();
    const key = tableKey(state, 'posts');
    state = run(state, { type: 'moveColumn', tableKey: key, columnKey: columnKey(state, 'posts', 'author_id'), toIndex: -5 });
    expect(toDocument(state).tables[1]?.columns.map((c) => c.name)).toEqual(['author_id', 'title']);
    state = run(state, { type: 'moveColumn', tableKey: key, columnKey: columnKey(state, 'posts', 'author_id'), toIndex: 9 });
    expect(toDocument(state).tables[1]?.columns.map((c) => c.name)).toEqual(['title', 'author_id']);
  });

  it('deleting the owner column clears owner_column', () => {
    let state = loaded();
    const key = tableKey(state, 'posts');
    state = run(state, { type: 'setTableOptions', tableKey: key, options: { owner_column: 'author_id' } });
    state = run(state, { type: 'deleteColumn', tableKey: key, columnKey: columnKey(state, 'posts', 'author_id') });
    expect(toDocument(state).tables[1]).toEqual({ name: 'posts', columns: [{ name: 'title', type: 'text', required: true }] });
  });
});

describe('relationships', () => {
  it('adding a relationship creates a foreign-key column named after the target', () => {
    let state = run(emptyBuilderState, { type: 'addTable', name: 'categories' }, { type: 'addTable', name: 'posts' });
    state = run(state, { type: 'addRelationship', tableKey: tableKey(state, 'posts'), targetTable: 'categories' });
    expect(toDocument(state).tables[1]?.columns).toEqual([
      { name: 'category_id', type: 'integer', references: { table: 'categories', on_delete: 'restrict' } },
    ]);
  });

  it('a second relationship to the same table gets its own reverse relation name', () => {
    let state = loaded();
    state = run(state, { type: 'addRelationship', tableKey: tableKey(state, 'posts'), targetTable: 'users' });
    expect(toDocument(state).tables[1]?.columns[2]).toEqual({
      name: 'user_id',
      type: 'integer',
      references: { table: 'users', on_delete: 'restrict' },
      reverse_relation: 'posts_as_user',
    });
  });

  it('a relationship to a uuid table makes a uuid column', () => {
    let state = run(emptyBuilderState, { type: 'addTable', name: 'users' }, { type: 'addTable', name: 'posts' });
    state = run(state, { type: 'setTableOptions', tableKey: tableKey(state, 'users'), options: { id_type: 'uuid' } });
    state = run(state, { type: 'addRelationship', tableKey: tableKey(state, 'posts'), targetTable: 'users' });
    expect(toDocument(state).tables[1]?.columns[0]).toMatchObject({ name: 'user_id', type: 'uuid' });
  });

  it('drawing an edge from a column makes that column a foreign key of the right type', () => {
    let state = loaded();
    const key = tableKey(state, 'posts');
    state = run(state, { type: 'addColumn', tableKey: key, column: { name: 'editor', type: 'text', max_length: 5 } });
    state = run(state, { type: 'addRelationship', tableKey: key, targetTable: 'users', columnKey: columnKey(state, 'posts', 'editor') });
    expect(toDocument(state).tables[1]?.columns[2]).toEqual({
      name: 'editor',
      type: 'integer',
      references: { table: 'users', on_delete: 'restrict' },
    });
  });

  it('removing a reference also removes its relation names', () => {
    let state = loaded();
    const key = tableKey(state, 'posts');
    const col = columnKey(state, 'posts', 'author_id');
    state = run(state, { type: 'updateColumn', tableKey: key, columnKey: col, patch: { relation: 'writer' } });
    state = run(state, { type: 'setReference', tableKey: key, columnKey: col, reference: undefined });
    expect(toDocument(state).tables[1]?.columns[1]).toEqual({ name: 'author_id', type: 'integer' });
  });
});

describe('helpers', () => {
  it('singular handles common English plurals', () => {
    expect(['users', 'categories', 'boxes', 'addresses', 'status', 'analysis'].map(singular)).toEqual([
      'user',
      'category',
      'box',
      'address',
      'status',
      'analysis',
    ]);
  });


  it('settleRenames drops renames that a publish already applied and keeps pending ones', () => {
    const after: SchemaDocument = {
      tables: [
        { name: 'members', renamed_from: 'users', columns: [{ name: 'mail', type: 'email', renamed_from: 'email' }] },
        { name: 'posts', columns: [{ name: 'headline', type: 'text', renamed_from: 'title' }] },
      ],
    };
    const nowPublished: SchemaDocument = {
      tables: [
        { name: 'members', columns: [{ name: 'mail', type: 'email' }] },
        { name: 'posts', columns: [{ name: 'title', type: 'text' }] },
      ],
    };
    expect(settleRenames(after, nowPublished)).toEqual({
      tables: [
        { name: 'members', columns: [{ name: 'mail', type: 'email' }] },
        { name: 'posts', columns: [{ name: 'headline', type: 'text', renamed_from: 'title' }] },
      ],
    });
  });
});

describe('a fronted database', () => {
  const fronted: SchemaDocument = {
    tables: [
      {
        name: 'orders',
        external: { primary_key: 'order_id' },
        columns: [
          { name: 'order_id', type: 'integer' },
          { name: 'tags', type: 'passthrough', pg_type: 'text[]' },
          { name: 'note', type: 'text' },
        ],
      },
    ],
  };
  const loaded = () => builderReducer(emptyBuilderState, { type: 'load', draft: fronted, published: fronted });
  const keyOf = (state: BuilderState, name: string) => {
    const column = nth(state.tables, 0).columns.find((c) => c.name === name);
    if (!column) throw new Error(`no column ${name}`);
    return column.key;
  };

  it('says why passthrough columns and the database key are read-only', () => {
    const table = nth(fronted.tables, 0);
    expect(readOnlyReason(table, nth(table.columns, 1))).toMatch(/^Database type text\[\]: served read-only/);
    expect(readOnlyReason(table, nth(table.columns, 0))).toMatch(/primary key/);
    expect(readOnlyReason(table, nth(table.columns, 2))).toBeUndefined();
    expect(readOnlyReason({}, { name: 'id', type: 'integer' })).toBeUndefined();
  });

  it('never changes, renames or deletes a read-only column', () => {
    const state = loaded();
    const tableKey = nth(state.tables, 0).key;
    const tags = keyOf(state, 'tags');
    const pk = keyOf(state, 'order_id');
    const actions: BuilderAction[] = [
      { type: 'setColumnType', tableKey, columnKey: tags, columnType: 'text' },
      { type: 'updateColumn', tableKey, columnKey: tags, patch: { required: true } },
      { type: 'renameColumn', tableKey, columnKey: tags, name: 'labels' },
      { type: 'deleteColumn', tableKey, columnKey: tags },
      { type: 'setColumnType', tableKey, columnKey: pk, columnType: 'uuid' },
      { type: 'deleteColumn', tableKey, columnKey: pk },
    ];
    const after = actions.reduce(builderReducer, state);
    expect(toDocument(after)).toEqual(fronted);
    expect(isDirty(after)).toBe(false);
    // Other columns of the same table stay editable.
    const edited = builderReducer(after, { type: 'updateColumn', tableKey, columnKey: keyOf(after, 'note'), patch: { required: true } });
    expect(toDocument(edited).tables[0]?.columns[2]).toEqual({ name: 'note', type: 'text', required: true });
  });

  it('selects a table by its place in the document, for a problem path', () => {
    const state = builderReducer(loaded(), { type: 'selectTableAt', index: 0 });
    expect(state.selectedTableKey).toBe(state.tables[0]?.key);
    expect(builderReducer(state, { type: 'selectTableAt', index: 5 })).toBe(state);
  });

  it('gives the JSON the builder holds right after loading a draft', () => {
    const draft: SchemaDocument = { tables: [{ name: 'a', columns: [{ name: 'b', type: 'text', renamed_from: 'old' }] }] };
    const published: SchemaDocument = { tables: [{ name: 'a', columns: [{ name: 'b', type: 'text' }] }] };
    const state = builderReducer(emptyBuilderState, { type: 'load', draft, published });
    expect(loadedDocumentJson(draft, published)).toBe(stableJson(toDocument(state)));
    expect(loadedDocumentJson(draft, published)).not.toContain('renamed_from');
  });
});

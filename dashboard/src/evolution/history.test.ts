import { describe, expect, it } from 'vitest';
import type { SchemaDocument } from '../schema/document';
import { appliedDescriptions, compareDocuments, exportFileName, isSameDocument, newestFirst, versionDocument } from './history';
import { nth } from '../lib/nth';

const v1: SchemaDocument = {
  tables: [
    { name: 'users', auth: true, columns: [{ name: 'email', type: 'email', required: true }, { name: 'password_hash', type: 'password' }] },
    { name: 'posts', columns: [{ name: 'title', type: 'text' }] },
  ],
};

const draft: SchemaDocument = {
  tables: [
    {
      name: 'users',
      auth: true,
      position: { x: 300, y: 20 },
      columns: [
        { name: 'email', type: 'email', required: true, unique: true },
        { name: 'password_hash', type: 'password' },
        { name: 'nickname', type: 'text' },
      ],
    },
    { name: 'comments', columns: [{ name: 'body', type: 'text' }] },
  ],
};

describe('compareDocuments', () => {
  it('names what going back to a version removes from and adds to the draft', () => {
    expect(compareDocuments(draft, v1)).toEqual({
      addedTables: ['posts'],
      removedTables: ['comments'],
      addedColumns: [],
      removedColumns: ['users.nickname'],
      changedColumns: ['users.email'],
      changedTables: [],
    });
  });

  it('ignores layout and rename markers', () => {
    const moved: SchemaDocument = {
      tables: v1.tables.map((t) => ({ ...t, position: { x: 1, y: 2 }, renamed_from: 'old', columns: t.columns.map((c) => ({ ...c, renamed_from: 'was' })) })),
    };
    expect(isSameDocument(compareDocuments(moved, v1))).toBe(true);
  });

  it('notices table settings', () => {
    const noAuth: SchemaDocument = { tables: [{ ...nth(v1.tables, 0), auth: undefined }, nth(v1.tables, 1)] };
    expect(compareDocuments(noAuth, v1).changedTables).toEqual(['users']);
  });
});

describe('versions', () => {
  const at = '2026-01-01T00:00:00Z';
  it('reads the document and sorts newest first', () => {
    expect(versionDocument({ version: 1, created_at: at, document: v1 })).toEqual(v1);
    expect(versionDocument({ version: 1, created_at: at, document: { tables: null as unknown as [] } })).toEqual({ tables: [] });
    expect(versionDocument({ version: 1, created_at: at })).toBeUndefined();
    expect(versionDocument(undefined)).toBeUndefined();
    const listed = [1, 3, 2].map((version) => ({ version, created_at: at }));
    expect(newestFirst(listed).map((v) => v.version)).toEqual([3, 2, 1]);
  });

  it('lists what a version applied', () => {
    expect(appliedDescriptions({ version: 2, created_at: at, applied: [{ kind: 'add_column', table: 't', destructive: false, description: 'add column t.c' }] })).toEqual([
      'add column t.c',
    ]);
    expect(appliedDescriptions({ version: 2, created_at: at, applied: null })).toEqual([]);
  });

  it('names export files as the server does', () => {
    expect(exportFileName('abc')).toBe('abc-schema.json');
    expect(exportFileName('abc', 4)).toBe('abc-schema-v4.json');
  });
});

import { describe, expect, it } from 'vitest';
import type { SchemaDocument } from '../schema/document';
import { columnsBlockedByRows, describeBlockedColumn, tablesToCount } from './existingRows';

const published: SchemaDocument = {
  tables: [
    { name: 'books', columns: [{ name: 'title', type: 'text', required: true }] },
    { name: 'shelves', columns: [{ name: 'label', type: 'text' }] },
  ],
};

function withColumn(column: Record<string, unknown>, table = 'books'): SchemaDocument {
  return {
    tables: published.tables.map((t) => (t.name === table ? { ...t, columns: [...t.columns, { name: 'year', type: 'integer', ...column }] } : t)),
  };
}

describe('columns blocked by existing rows', () => {
  it('flags a new required column without a default on a table with rows, with the count', () => {
    const draft = withColumn({ required: true });
    expect(tablesToCount(draft, published)).toEqual(['books']);
    const blocked = columnsBlockedByRows(draft, published, { books: { total: 3, estimated: false } });
    expect(blocked).toEqual([
      { tableIndex: 0, columnIndex: 1, table: 'books', column: 'year', publishedTable: 'books', rows: { total: 3, estimated: false }, rule: 'needs-value' },
    ]);
    expect(describeBlockedColumn(blocked[0]!)).toBe(
      'books has 3 rows: they would have no value for the new required column year. Give it a default, or a value to fill the existing rows once.',
    );
  });

  it('lets it through on an empty table, with a default, or with a backfill', () => {
    expect(columnsBlockedByRows(withColumn({ required: true }), published, { books: { total: 0, estimated: false } })).toEqual([]);
    expect(columnsBlockedByRows(withColumn({ required: true, default: 2000 }), published, { books: { total: 3, estimated: false } })).toEqual([]);
    expect(columnsBlockedByRows(withColumn({ required: true, backfill: 1999 }), published, { books: { total: 3, estimated: false } })).toEqual([]);
    expect(tablesToCount(withColumn({ required: true, backfill: 1999 }), published)).toEqual([]);
  });

  it('does not count tables nothing risky is added to, nor a new table, nor a column that exists', () => {
    expect(tablesToCount(withColumn({}), published)).toEqual([]);
    const newTable: SchemaDocument = { tables: [...published.tables, { name: 'loans', columns: [{ name: 'due', type: 'date', required: true }] }] };
    expect(tablesToCount(newTable, published)).toEqual([]);
    const madeRequired: SchemaDocument = { tables: [{ ...published.tables[0]!, columns: [{ name: 'title', type: 'text', required: true }] }, published.tables[1]!] };
    expect(tablesToCount(madeRequired, published)).toEqual([]);
  });

  it('follows a renamed table to the published rows', () => {
    const draft: SchemaDocument = {
      tables: [{ name: 'volumes', renamed_from: 'books', columns: [...published.tables[0]!.columns, { name: 'year', type: 'integer', required: true }] }],
    };
    expect(tablesToCount(draft, published)).toEqual(['books']);
    expect(columnsBlockedByRows(draft, published, { books: { total: 12000, estimated: true } })[0]).toMatchObject({ table: 'volumes', publishedTable: 'books' });
  });

  it('flags a new unique column with a default when more than one row would share it', () => {
    const draft = withColumn({ unique: true, default: 1 });
    expect(columnsBlockedByRows(draft, published, { books: { total: 1, estimated: false } })).toEqual([]);
    const blocked = columnsBlockedByRows(draft, published, { books: { total: 2, estimated: false } });
    expect(blocked.map((b) => b.rule)).toEqual(['unique-fill']);
    expect(describeBlockedColumn({ ...blocked[0]!, rows: { total: 12000, estimated: true } })).toContain('about 12,000 rows');
  });

  it('waits for the count before saying anything', () => {
    expect(columnsBlockedByRows(withColumn({ required: true }), published, {})).toEqual([]);
  });
});

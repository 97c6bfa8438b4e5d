import { describe, expect, it } from 'vitest';
import { parseSchemaFile, sortedProblems } from './schemaFile';

describe('parseSchemaFile', () => {
  it('takes a schema document, also with a byte-order mark and surrounding space', () => {
    const text = '\uFEFF  {"tables": [{"name": "users", "columns": []}]}\n';
    expect(parseSchemaFile(text)).toEqual({ ok: true, document: { tables: [{ name: 'users', columns: [] }] } });
  });

  it('refuses what is not JSON, with the parser message', () => {
    const result = parseSchemaFile('{"tables": [');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/^The file is not valid JSON: /);
  });

  it('refuses JSON that is not a schema document, so a wrong file never empties the draft', () => {
    expect(parseSchemaFile('')).toEqual({ ok: false, error: 'The file is empty.' });
    expect(parseSchemaFile('[]')).toMatchObject({ ok: false, error: expect.stringContaining('JSON object') });
    expect(parseSchemaFile('{}')).toMatchObject({ ok: false, error: expect.stringContaining('no "tables" list') });
    expect(parseSchemaFile('{"name": "pkg", "version": "1.0.0"}')).toMatchObject({ ok: false });
    expect(parseSchemaFile('{"tables": [1]}')).toMatchObject({ ok: false, error: expect.stringContaining('table object') });
  });

  it('leaves the judging of tables to the server', () => {
    expect(parseSchemaFile('{"tables": [{"name": "Bad Name", "colour": "red"}]}').ok).toBe(true);
  });
});

describe('sortedProblems', () => {
  it('orders problems by their place in the document, numbers as numbers', () => {
    expect(
      sortedProblems({
        'tables[10].name': 'a',
        'tables[2].columns[1].type': 'b',
        'tables[2].columns[0].name': 'c',
        tables: 'd',
      }).map(([path]) => path),
    ).toEqual(['tables', 'tables[2].columns[0].name', 'tables[2].columns[1].type', 'tables[10].name']);
    expect(sortedProblems(undefined)).toEqual([]);
  });
});

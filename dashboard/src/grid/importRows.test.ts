import { describe, expect, it } from 'vitest';
import type { SchemaTable } from '../schema/document';
import { ImportFileError, importBodies, problemsFromDetails, readImportText, suggestMapping } from './importRows';

const books: SchemaTable = {
  name: 'books',
  columns: [
    { name: 'title', type: 'text', required: true },
    { name: 'price', type: 'decimal', min: 0 },
    { name: 'pages', type: 'integer' },
    { name: 'author_id', type: 'integer', references: { table: 'authors' } },
    { name: 'secret_hash', type: 'password' },
  ],
};

describe('import', () => {
  it('reads a CSV file into named rows and maps its columns by name', () => {
    const file = readImportText('books.csv', 'Title,Price,Author ID,id,extra\r\n"Dune, part 1",12.50,1,9,x\r\n');
    expect(file.headers).toEqual(['Title', 'Price', 'Author ID', 'id', 'extra']);
    expect(file.rows).toEqual([{ Title: 'Dune, part 1', Price: '12.50', 'Author ID': '1', id: '9', extra: 'x' }]);
    expect(suggestMapping(file.headers, books)).toEqual({ Title: 'title', Price: 'price', 'Author ID': 'author_id', id: '', extra: '' });
  });

  it('converts CSV text by column type, keeps decimals as typed and leaves empty optional cells out', () => {
    const file = readImportText('b.csv', 'title,price,pages,secret\nA,0.10,300,hunter22\nB,,,\n');
    const { bodies, problems } = importBodies(file, { title: 'title', price: 'price', pages: 'pages', secret: 'secret' }, books);
    expect(problems).toEqual([]);
    expect(bodies).toEqual([{ title: 'A', price: '0.10', pages: 300, secret: 'hunter22' }, { title: 'B' }]);
  });

  it('reports a row the column rules refuse, counting data rows from 0', () => {
    const file = readImportText('b.csv', 'title,pages\nA,1\n,many\n');
    const { problems } = importBodies(file, { title: 'title', pages: 'pages' }, books);
    expect(problems).toEqual([
      { row: 1, field: 'title', message: 'is required' },
      { row: 1, field: 'pages', message: 'must be a whole number' },
    ]);
  });

  it('reads a JSON array and NDJSON with exact decimals, and refuses other JSON', () => {
    const array = readImportText('b.json', '[{"title":"A","price":12345678901234567890.10},{"title":"B","pages":3}]');
    expect(array.headers).toEqual(['title', 'price', 'pages']);
    const { bodies } = importBodies(array, suggestMapping(array.headers, books), books);
    expect(bodies).toEqual([{ title: 'A', price: '12345678901234567890.10' }, { title: 'B', pages: 3 }]);
    expect(readImportText('b.ndjson', '{"title":"A"}\n{"title":"B"}\n').rows).toHaveLength(2);
    expect(() => readImportText('b.json', '[1]')).toThrow(ImportFileError);
    expect(() => readImportText('b.csv', 'a,b\n1\n')).toThrow('row 1 has 1 fields, the header 2');
  });

  it('tells every problem at once, each with its row: CSV and JSON alike', () => {
    const csv = readImportText('b.csv', 'title,pages,price\nA,x,1\n,2,-1\nC,3,2\nD,4.5,\n');
    expect(importBodies(csv, { title: 'title', pages: 'pages', price: 'price' }, books).problems).toEqual([
      { row: 0, field: 'pages', message: 'must be a whole number' },
      { row: 1, field: 'title', message: 'is required' },
      { row: 1, field: 'price', message: 'must be at least 0' },
      { row: 3, field: 'pages', message: 'must be a whole number' },
    ]);
    const json = readImportText('b.json', '[{"title":"A","price":-2},{"title":null},{"pages":1}]');
    expect(importBodies(json, { title: 'title', price: 'price', pages: 'pages' }, books).problems).toEqual([
      { row: 0, field: 'price', message: 'must be at least 0' },
      { row: 1, field: 'title', message: 'is required' },
      { row: 2, field: 'title', message: 'is required' },
    ]);
    expect(importBodies(csv, { pages: 'pages' }, books).problems[0]).toEqual({ row: -1, field: 'title', message: 'is required; map a file column to it' });
  });

  it('flags two file columns mapped to one field', () => {
    const file = readImportText('b.csv', 'a,b\n1,2\n');
    expect(importBodies(file, { a: 'title', b: 'title' }, books).problems[0]?.message).toMatch(/two file columns/);
  });

  it('turns the server details of a bulk create into row problems', () => {
    expect(problemsFromDetails({ '3.email': 'invalid e-mail format', '1': 'must be a JSON object', body: 'too many' })).toEqual([
      { row: -1, field: 'body', message: 'too many' },
      { row: 1, field: '', message: 'must be a JSON object' },
      { row: 3, field: 'email', message: 'invalid e-mail format' },
    ]);
  });
});

describe('import into a table with file columns', () => {
  const albums: SchemaTable = {
    name: 'albums',
    columns: [
      { name: 'title', type: 'text', required: true },
      { name: 'cover', type: 'file', required: true },
      { name: 'photos', type: 'files' },
    ],
  };

  it('maps nothing to a file column, and says a required one cannot be imported', () => {
    const file = readImportText('a.csv', 'title,cover,photos\nBlue,x.png,y.png\n');
    expect(suggestMapping(file.headers, albums)).toEqual({ title: 'title', cover: '', photos: '' });
    expect(importBodies(file, suggestMapping(file.headers, albums), albums).problems).toEqual([
      { row: -1, field: 'cover', message: 'is a required file column: records with files are created one at a time with New record' },
    ]);
  });
});

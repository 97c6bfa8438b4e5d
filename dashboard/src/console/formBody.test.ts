import { describe, expect, it } from 'vitest';
import type { SchemaDocument } from '../schema/document';
import { buildFormData, formFields, formParts, formValuesFromJson, takesFormOnly } from './formBody';
import { listOperations, type ConsoleOperation, type OpenApiDocument } from './openapi';

const schema: SchemaDocument = {
  tables: [
    {
      name: 'books',
      columns: [
        { name: 'title', type: 'text', required: true },
        { name: 'pages', type: 'integer' },
        { name: 'featured', type: 'boolean' },
        { name: 'cover', type: 'file', mime_types: ['image/*'] },
        { name: 'scans', type: 'files', max_files: 5 },
      ],
    },
    { name: 'notes', columns: [{ name: 'body', type: 'text' }] },
  ],
};

// The upload and download of books.cover as the API description has them.
const doc: OpenApiDocument = {
  paths: {
    '/books': { post: { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } } },
    '/books/{id}': {
      put: { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } },
      patch: { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } },
    },
    '/books/bulk': { post: { requestBody: { content: { 'application/json': { schema: { type: 'array' } } } } } },
    '/notes': { post: { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } } },
    '/books/files/cover': {
      post: {
        requestBody: {
          content: {
            'multipart/form-data': {
              schema: { type: 'object', properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } }, required: ['file'] },
            },
          },
        },
        responses: { '201': { content: { 'application/json': {} } } },
      },
    },
    '/books/{id}/files/cover/{name}': {
      get: { responses: { '200': { content: { 'application/octet-stream': { schema: { type: 'string' } } } } } },
      post: { responses: { '200': { content: { 'application/json': {} } } } },
    },
  },
};

const operations = listOperations(doc);
function operation(id: string): ConsoleOperation {
  const found = operations.find((o) => o.id === id);
  if (!found) throw new Error(`no ${id}`);
  return found;
}

const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'red.png', { type: 'image/png' });
const pdf = (name: string) => new File(['%PDF-1.4'], name, { type: 'application/pdf' });

describe('form bodies of the Test console', () => {
  it('are offered for the writes of one record of a table with a file column', () => {
    const fields = formFields(operation('POST /books'), schema, doc);
    expect(fields?.map((f) => [f.name, f.kind])).toEqual([
      ['title', 'text'],
      ['pages', 'text'],
      ['featured', 'text'],
      ['cover', 'file'],
      ['scans', 'files'],
    ]);
    expect(formFields(operation('PUT /books/{id}'), schema, doc)).toHaveLength(5);
    expect(formFields(operation('PATCH /books/{id}'), schema, doc)).toHaveLength(5);
    // A bulk create takes JSON only; a table without a file column too.
    expect(formFields(operation('POST /books/bulk'), schema, doc)).toBeUndefined();
    expect(formFields(operation('POST /notes'), schema, doc)).toBeUndefined();
    expect(formFields(operation('POST /books'), undefined, doc)).toBeUndefined();
  });

  it('are the only body of an upload, whose part is the file of the column', () => {
    const upload = operation('POST /books/files/cover');
    expect(takesFormOnly(upload)).toBe(true);
    expect(takesFormOnly(operation('POST /books'))).toBe(false);
    const fields = formFields(upload, schema, doc);
    expect(fields).toEqual([{ name: 'file', kind: 'file', column: schema.tables[0]!.columns[3] }]);
  });

  it('mark a download as answering bytes', () => {
    expect(operation('GET /books/{id}/files/cover/{name}').binaryAnswer).toBe(true);
    expect(operation('POST /books/{id}/files/cover/{name}').binaryAnswer).toBe(false);
    expect(operation('POST /books').binaryAnswer).toBe(false);
  });

  it('start from the JSON body, each value as the server reads its part', () => {
    const fields = formFields(operation('POST /books'), schema, doc)!;
    expect(formValuesFromJson(fields, '{"title": "Dune", "pages": 412, "featured": true, "cover": null}')).toEqual({
      title: 'Dune',
      pages: '412',
      featured: 'true',
    });
    expect(formValuesFromJson(fields, 'not json')).toEqual({ title: '', pages: '', featured: '' });
  });

  it('build multipart/form-data: filled fields as text, files as parts named after their column', async () => {
    const fields = formFields(operation('POST /books'), schema, doc)!;
    const body = { values: { title: 'Dune', pages: '412', featured: '' }, files: { cover: [png], scans: [pdf('p1.pdf'), pdf('p2.pdf')] } };
    const form = buildFormData(fields, body);
    expect([...form.keys()]).toEqual(['title', 'pages', 'cover', 'scans', 'scans']);
    expect(form.get('title')).toBe('Dune');
    expect(form.has('featured')).toBe(false); // empty: not sent
    const cover = form.get('cover') as File;
    expect(cover.name).toBe('red.png');
    expect(new Uint8Array(await cover.arrayBuffer())).toEqual(new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
    expect(form.getAll('scans').map((f) => (f as File).name)).toEqual(['p1.pdf', 'p2.pdf']);
    // The same parts for code to copy.
    expect(formParts(fields, body)).toEqual([
      { name: 'title', value: 'Dune' },
      { name: 'pages', value: '412' },
      { name: 'cover', fileName: 'red.png' },
      { name: 'scans', fileName: 'p1.pdf' },
      { name: 'scans', fileName: 'p2.pdf' },
    ]);
  });
});

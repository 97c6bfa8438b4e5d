import { describe, expect, it } from 'vitest';
import type { SchemaTable } from '../schema/document';
import { cellText } from './cells';
import { isEditable, isSortable } from './columns';
import {
  chosenFilesProblem,
  fileRulesText,
  filesText,
  isApiFileUrl,
  partText,
  recordWriteBody,
  storedFiles,
  uploadsFiles,
} from './files';

const cover = { name: 'cover_ab12.png', size: 1536, type: 'image/png', url: '/v1/p1/albums/3/files/cover/cover_ab12.png' };
const scan = { name: 'scan_cd34.pdf', size: 2 * 1024 * 1024, type: 'application/pdf', url: '/v1/p1/albums/3/files/photos/scan_cd34.pdf' };

const albums: SchemaTable = {
  name: 'albums',
  columns: [
    { name: 'title', type: 'text', required: true },
    { name: 'year', type: 'integer' },
    { name: 'price', type: 'decimal' },
    { name: 'live', type: 'boolean' },
    { name: 'released', type: 'date' },
    { name: 'meta', type: 'json' },
    { name: 'secret_hash', type: 'password' },
    { name: 'cover', type: 'file', max_size: 1024, mime_types: ['image/*'] },
    { name: 'photos', type: 'files', max_files: 2 },
  ],
};

describe('files a record shows', () => {
  it('reads a file, a list and null', () => {
    expect(storedFiles(cover)).toEqual([cover]);
    expect(storedFiles([cover, scan])).toEqual([cover, scan]);
    expect(storedFiles(null)).toEqual([]);
    expect(storedFiles('cover.png')).toEqual([]);
    expect(storedFiles([cover, { name: 'no url' }])).toEqual([cover]);
  });

  it('says them in words for a cell', () => {
    expect(filesText(cover)).toBe('cover_ab12.png (1.5 KB)');
    expect(filesText([cover, scan])).toBe('2 files: cover_ab12.png, scan_cd34.pdf');
    expect(filesText([])).toBe('no file');
    expect(cellText(cover, 'file').text).toBe('cover_ab12.png (1.5 KB)');
    expect(cellText(null, 'files').text).toBe('—');
  });

  it('fetches with the credential only from this origin generated API', () => {
    const origin = 'http://localhost:8080';
    expect(isApiFileUrl(cover.url, origin)).toBe(true);
    expect(isApiFileUrl('http://localhost:8080/v1/p1/a/1/files/c/x.png', origin)).toBe(true);
    expect(isApiFileUrl('https://evil.example/v1/p1/a/1/files/c/x.png', origin)).toBe(false);
    expect(isApiFileUrl('//evil.example/v1/x', origin)).toBe(false);
    expect(isApiFileUrl('/api/projects', origin)).toBe(false);
  });

  it('are neither edited in place nor sorted', () => {
    for (const type of ['file', 'files']) {
      const column = { name: 'c', type, system: false, field: 'c' };
      expect(isEditable(column)).toBe(false);
      expect(isSortable(column)).toBe(false);
    }
    expect(isSortable({ name: 'title', type: 'text', system: false, field: 'title' })).toBe(true);
  });
});

describe('chosen files', () => {
  const [, , , , , , , coverColumn, photosColumn] = albums.columns;

  it('are checked against max_size and max_files in the server words', () => {
    expect(chosenFilesProblem(coverColumn!, [{ name: 'a.png', size: 1024 }])).toBeUndefined();
    expect(chosenFilesProblem(coverColumn!, [{ name: 'a.png', size: 1025 }])).toBe("is 1025 bytes, more than the column's max_size of 1024");
    expect(chosenFilesProblem(photosColumn!, [{ name: 'a', size: 1 }, { name: 'b', size: 1 }])).toBeUndefined();
    expect(chosenFilesProblem(photosColumn!, [{ name: 'a', size: 1 }, { name: 'b', size: 1 }, { name: 'c', size: 1 }])).toBe('must hold at most 2 files');
    expect(chosenFilesProblem({ name: 'p', type: 'files', max_size: 10 }, [{ name: 'ok', size: 10 }, { name: 'big.bin', size: 11 }])).toBe(
      "big.bin: is 11 bytes, more than the column's max_size of 10",
    );
    // Eleven files for a files column without max_files: the default is 10.
    expect(chosenFilesProblem({ name: 'p', type: 'files' }, Array.from({ length: 11 }, (_, i) => ({ name: `${i}`, size: 1 })))).toBe('must hold at most 10 files');
  });

  it('describe the column rules for the input', () => {
    expect(fileRulesText(coverColumn!)).toBe('image/* · at most 1 KB');
    expect(fileRulesText(photosColumn!)).toBe('any type · up to 2 files');
    expect(fileRulesText({ name: 'p', type: 'files', max_size: 5 * 1024 * 1024 })).toBe('any type · at most 5 MB each · up to 10 files');
  });
});

describe('the body of a write with files', () => {
  const column = (name: string) => albums.columns.find((c) => c.name === name);

  it('writes each field as the text the server reads back', () => {
    expect(partText(column('title'), 'Blue 42')).toBe('Blue 42');
    expect(partText(column('title'), '123')).toBe('123');
    expect(partText(column('year'), 1999)).toBe('1999');
    expect(partText(column('price'), '12.50')).toBe('"12.50"');
    expect(partText(column('live'), false)).toBe('false');
    expect(partText(column('released'), '2026-01-31')).toBe('2026-01-31');
    expect(partText(column('meta'), { a: [1] })).toBe('{"a":[1]}');
    expect(partText(column('meta'), 'text')).toBe('"text"');
    expect(partText(column('title'), null)).toBe('');
  });

  it('stays JSON without a file, a removed file as null', () => {
    expect(uploadsFiles({})).toBe(false);
    expect(recordWriteBody(albums, { title: 'A' }, {})).toEqual({ title: 'A' });
    expect(recordWriteBody(albums, { title: 'A' }, { cover: null })).toEqual({ title: 'A', cover: null });
    // An input cleared again is no change.
    expect(recordWriteBody(albums, {}, { photos: [] })).toEqual({});
  });

  it('is multipart/form-data with a file: fields as text parts, each file a part named after its column', async () => {
    const png = new File([new Uint8Array([137, 80, 78, 71])], 'pixel.png', { type: 'image/png' });
    const a = new File(['a'], 'a.txt', { type: 'text/plain' });
    const b = new File(['bb'], 'b.txt', { type: 'text/plain' });
    const body = recordWriteBody(albums, { title: 'Blue', year: 1999, live: true, meta: { k: 1 }, secret: 'pw', released: null }, { cover: [png], photos: [a, b] });
    expect(body).toBeInstanceOf(FormData);
    const form = body as FormData;
    const texts = [...form.entries()].filter(([, v]) => typeof v === 'string');
    expect(texts).toEqual([
      ['title', 'Blue'],
      ['year', '1999'],
      ['live', 'true'],
      ['meta', '{"k":1}'],
      ['secret', 'pw'],
      ['released', ''],
    ]);
    const cover = form.getAll('cover');
    expect(cover).toHaveLength(1);
    expect((cover[0] as File).name).toBe('pixel.png');
    expect(new Uint8Array(await (cover[0] as File).arrayBuffer())).toEqual(new Uint8Array([137, 80, 78, 71]));
    expect(form.getAll('photos').map((f) => (f as File).name)).toEqual(['a.txt', 'b.txt']);
  });

  it('removes one file column while uploading another', () => {
    const png = new File(['x'], 'x.png');
    const form = recordWriteBody(albums, {}, { cover: [png], photos: null }) as FormData;
    expect(form.get('photos')).toBe('');
    expect((form.get('cover') as File).name).toBe('x.png');
  });
});

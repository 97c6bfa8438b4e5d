import { describe, expect, it } from 'vitest';
import { constraintsFor, withTypeConstraints } from './columnRules';
import { formatBytes, mediaTypeAllowed, mediaTypesProblem, parseMediaTypes, sizeParts, toBytes, unitBytes } from './fileSettings';

describe('max size with a unit', () => {
  it('shows a stored size in the largest unit it is a whole number of', () => {
    expect(sizeParts(5 * 1024 * 1024)).toEqual({ amount: 5, unit: 'MB' });
    expect(sizeParts(3072)).toEqual({ amount: 3, unit: 'KB' });
    expect(sizeParts(1024 * 1024 + 1024)).toEqual({ amount: 1025, unit: 'KB' });
    expect(sizeParts(1536)).toEqual({ amount: 1536, unit: 'bytes' });
    expect(sizeParts(1)).toEqual({ amount: 1, unit: 'bytes' });
    expect(sizeParts(0)).toEqual({ amount: 0, unit: 'bytes' });
  });

  it('stores an amount of a unit as whole bytes (binary units)', () => {
    expect(unitBytes('KB')).toBe(1024);
    expect(toBytes(5, 'MB')).toBe(5_242_880);
    expect(toBytes(1.5, 'MB')).toBe(1_572_864);
    expect(toBytes(0.5, 'KB')).toBe(512);
    expect(toBytes(0.1, 'MB')).toBe(104_858);
    expect(toBytes(700, 'bytes')).toBe(700);
  });

  it('round-trips every size it shows', () => {
    for (const bytes of [1, 999, 1024, 1536, 2048, 1_048_576, 5_242_880, 50 * 1024 * 1024 + 7]) {
      const { amount, unit } = sizeParts(bytes);
      expect(toBytes(amount, unit)).toBe(bytes);
    }
  });

  it('says a size for people', () => {
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(68 * 1024)).toBe('68 KB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5 MB');
    expect(formatBytes(12.34 * 1024 * 1024)).toBe('12 MB');
  });
});

describe('media types', () => {
  it('reads typed text as lower-case types, each once', () => {
    expect(parseMediaTypes(' image/PNG, application/pdf  image/png,,text/* ')).toEqual(['image/png', 'application/pdf', 'text/*']);
    expect(parseMediaTypes('')).toEqual([]);
  });

  it('names the first value that is no media type, in the server words', () => {
    expect(mediaTypesProblem(['image/*', 'application/pdf', 'image/svg+xml', 'application/vnd.ms-excel'])).toBeUndefined();
    expect(mediaTypesProblem(['image/png', 'images', 'also bad'])).toBe('"images" is not a media type such as image/png or image/*');
    for (const bad of ['Image/png', '*/*', 'image/', '/png', 'text/plain; charset=utf-8', 'image/png ', '']) {
      expect(mediaTypesProblem([bad]), bad).toBeDefined();
    }
  });

  it('matches a sniffed type the way the server does', () => {
    expect(mediaTypeAllowed(['image/*'], 'image/png')).toBe(true);
    expect(mediaTypeAllowed(['image/*'], 'application/pdf')).toBe(false);
    expect(mediaTypeAllowed(['image/png'], 'image/pngx')).toBe(false);
    expect(mediaTypeAllowed(['application/pdf', 'image/png'], 'image/png')).toBe(true);
    expect(mediaTypeAllowed([], 'anything/at-all')).toBe(true);
    expect(mediaTypeAllowed(undefined, 'text/plain')).toBe(true);
  });
});

describe('the constraints of file columns', () => {
  it('offers the file settings and none of unique, index, searchable, default', () => {
    for (const type of ['file', 'files']) {
      const keys = constraintsFor(type);
      expect(keys.has('max_size')).toBe(true);
      expect(keys.has('mime_types')).toBe(true);
      for (const absent of ['unique', 'index', 'searchable', 'default', 'html', 'references', 'min_length', 'pattern'] as const) {
        expect(keys.has(absent), `${type} ${absent}`).toBe(false);
      }
    }
    expect(constraintsFor('files').has('max_files')).toBe(true);
    expect(constraintsFor('file').has('max_files')).toBe(false);
    expect(constraintsFor('text').has('max_size')).toBe(false);
  });

  it('drops what the new type does not take on a type change', () => {
    expect(withTypeConstraints({ name: 'cover', type: 'file', unique: true, default: 'x', max_length: 3, max_size: 10, mime_types: ['image/*'], thumbnails: true })).toEqual({
      name: 'cover',
      type: 'file',
      max_size: 10,
      mime_types: ['image/*'],
      thumbnails: true,
    });
    expect(withTypeConstraints({ name: 'photos', type: 'file', max_size: 10, max_files: 4 })).toEqual({ name: 'photos', type: 'file', max_size: 10 });
    expect(withTypeConstraints({ name: 'photos', type: 'files', max_size: 10, max_files: 4, required: true })).toEqual({
      name: 'photos',
      type: 'files',
      max_size: 10,
      max_files: 4,
      required: true,
    });
    expect(withTypeConstraints({ name: 'title', type: 'text', max_size: 10, mime_types: ['image/*'], max_files: 3 })).toEqual({ name: 'title', type: 'text' });
  });
});

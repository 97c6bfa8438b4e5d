import { describe, expect, it } from 'vitest';
import type { SchemaColumn } from '../schema/document';
import { columnExample, exampleRecordWithHints } from './exampleRecord';
import { stringMatching } from './patternExample';

const value = (column: Partial<SchemaColumn> & { type: string }, seed = 0) => columnExample({ name: 'field', ...column }, { seed }).value;

describe('numeric examples stay within min and max', () => {
  it('a decimal with max 5 is at most 5, as a string', () => {
    expect(value({ type: 'decimal', max: 5 })).toBe('5');
    expect(value({ type: 'decimal' })).toBe('9.99');
    expect(value({ type: 'decimal', min: 10.5, max: 11 })).toBe('10.5');
    expect(value({ type: 'decimal', max: 0.000001 })).toBe('0.000001');
  });

  it('a number looks like what the column name says, within the bounds', () => {
    expect(value({ name: 'published_year', type: 'integer' })).toBe(2024);
    expect(value({ name: 'published_year', type: 'integer', min: 1450, max: 2100 })).toBe(2024);
    expect(value({ name: 'year', type: 'integer', max: 1999 })).toBe(1999);
    expect(value({ name: 'rating', type: 'integer', min: 1, max: 5 })).toBe(4);
    expect(value({ name: 'price', type: 'decimal' })).toBe('9.99');
    expect(value({ name: 'pages', type: 'integer', min: 1 })).toBe(320);
    expect(value({ name: 'latitude', type: 'number' })).toBe(52.52);
    expect(value({ name: 'field', type: 'integer' })).toBe(30);
  });

  it('integers respect fractional bounds and numbers their range', () => {
    expect(value({ type: 'integer', min: 40 })).toBe(40);
    expect(value({ type: 'integer', max: 3.5 })).toBe(3);
    expect(value({ type: 'integer', min: 1.2, max: 1.9 })).toBeNull();
    expect(value({ type: 'number', min: -2, max: -1 })).toBe(-1);
  });

  it('unique numbers vary with the seed and stay in range', () => {
    const seen = new Set<unknown>();
    for (let seed = 1; seed <= 20; seed++) {
      const v = value({ type: 'integer', unique: true, min: 0, max: 100 }, seed) as number;
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(100);
      seen.add(v);
      const d = Number(value({ type: 'decimal', unique: true, min: 1, max: 2 }, seed));
      expect(d).toBeGreaterThanOrEqual(1);
      expect(d).toBeLessThanOrEqual(2);
    }
    expect(seen.size).toBe(20);
  });
});

describe('text examples', () => {
  it('fit min_length and max_length', () => {
    expect(value({ type: 'text', max_length: 5 })).toBe('Examp');
    expect(value({ type: 'text', min_length: 20 })).toHaveLength(20);
    expect(value({ type: 'text', unique: true, max_length: 10 }, 42)).toMatch(/42$/);
  });

  it('match the column pattern instead of "Example isbn"', () => {
    const isbn = value({ type: 'text', pattern: '^97[89]-\\d{10}$' }) as string;
    expect(isbn).toBe('978-0000000000');
    expect(value({ type: 'text', pattern: '^[A-Z]{3}-[0-9]{2,4}$', min_length: 7 })).toBe('AAA-000');
    expect(value({ type: 'text', pattern: '^(draft|live)$' })).toBe('draft');
  });

  it('a pattern no value can meet within the lengths leaves a hint', () => {
    const example = columnExample({ name: 'code', type: 'text', pattern: '^[a-z]{10}$', max_length: 5 });
    expect(example.value).toBeNull();
    expect(example.hint).toMatch(/matching the pattern \^\[a-z\]\{10\}\$, at most 5 characters/);
  });

  it('a pattern in syntax the browser cannot check leaves a hint', () => {
    expect(columnExample({ name: 'code', type: 'text', pattern: '(?i)ab(?-i)c' }).hint).toMatch(/Fill in a value matching/);
  });

  it('unique text with a pattern varies with the seed', () => {
    const column = { type: 'text', unique: true, pattern: '^[a-z]{6}$' };
    const values = new Set([1, 2, 3, 4, 5].map((seed) => value(column, seed)));
    expect(values.size).toBe(5);
    for (const v of values) expect(v).toMatch(/^[a-z]{6}$/);
  });
});

describe('formats', () => {
  it('e-mail, url, uuid, date and timestamp have their shapes', () => {
    expect(value({ type: 'email' })).toBe('user1@example.com');
    expect(value({ type: 'email', unique: true }, 7)).toBe('user7@example.com');
    expect(value({ type: 'email', pattern: '@acme\\.org$' })).toMatch(/@acme\.org$/);
    expect(value({ type: 'url' })).toBe('https://example.com/');
    expect(value({ type: 'url', pattern: '^https://github\\.com/' })).toMatch(/^https:\/\/github\.com\//);
    expect(value({ type: 'uuid' })).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(value({ type: 'uuid', unique: true }, 255)).toBe('00000000-0000-4000-8000-0000000000ff');
    expect(value({ type: 'date' })).toBe('2026-01-31');
    expect(value({ type: 'timestamp' })).toBe('2026-01-31T12:00:00Z');
    expect(value({ type: 'timestamp', unique: true }, 3)).toBe('2026-01-31T12:00:03Z');
  });

  it('enum takes a listed value, and a unique one another for another seed', () => {
    expect(value({ type: 'enum', values: ['a', 'b'] })).toBe('a');
    expect(value({ type: 'enum', values: ['a', 'b'], unique: true }, 1)).toBe('b');
  });

  it('a password meets its minimum length', () => {
    expect((value({ type: 'password', min_length: 30 }) as string).length).toBeGreaterThanOrEqual(30);
  });
});

describe('references', () => {
  const books = {
    name: 'books',
    columns: [
      { name: 'title', type: 'text', required: true },
      { name: 'author_id', type: 'integer', required: true, references: { table: 'authors' } },
      { name: 'editor_id', type: 'integer', references: { table: 'editors' } },
    ],
  };

  it('take an existing id when there is one', () => {
    const { record, hints } = exampleRecordWithHints(books, { referenceIds: { authors: 12, editors: 3 } });
    expect(record).toEqual({ title: 'Example title', author_id: 12, editor_id: 3 });
    expect(hints).toEqual([]);
  });

  it('a required one without records is a hint; an optional one is left out', () => {
    const { record, hints } = exampleRecordWithHints(books, {});
    expect(record).toEqual({ title: 'Example title', author_id: null });
    expect(hints).toEqual([{ field: 'author_id', hint: 'authors has no records yet: create one first, then put its id here.' }]);
  });
});

describe('strings matching a pattern', () => {
  const cases: [string, RegExp][] = [
    ['^\\d{3}-\\d{4}$', /^\d{3}-\d{4}$/],
    ['^[A-Z][a-z]+( [A-Z][a-z]+)*$', /^[A-Z][a-z]+( [A-Z][a-z]+)*$/],
    ['^(?P<year>\\d{4})-Q[1-4]$', /^\d{4}-Q[1-4]$/],
    ['^[^@\\s]+$', /^[^@\s]+$/],
    ['^\\pL+$', /^\p{L}+$/u],
    ['^[[:upper:]]{2}\\d$', /^[A-Z]{2}\d$/],
    ['\\Aabc\\z', /^abc$/],
    ['^\\x41\\.b?c*$', /^A\.b?c*$/],
    ['^(foo|bar)+baz$', /^(foo|bar)+baz$/],
    ['^\\Q1+1\\E=2$', /^1\+1=2$/],
  ];
  it.each(cases)('%s', (pattern, check) => {
    const out = stringMatching(pattern);
    expect(out).toBeDefined();
    expect(out).toMatch(check);
  });

  it('pads an unanchored pattern to min_length', () => {
    const out = stringMatching('\\d{2}', { minLength: 6 });
    expect(out).toHaveLength(6);
    expect(out).toMatch(/\d{2}/);
  });

  it('stretches repetitions to reach min_length in an anchored pattern', () => {
    expect(stringMatching('^[a-z]+$', { minLength: 4, maxLength: 6 })).toMatch(/^[a-z]{4,6}$/);
  });
});

describe('file columns', () => {
  const albums = {
    name: 'albums',
    columns: [
      { name: 'title', type: 'text', required: true },
      { name: 'cover', type: 'file', required: true },
      { name: 'photos', type: 'files' },
    ],
  };

  it('are uploaded, not written in JSON: a required one is a hint, an optional one is left out', () => {
    const { record, hints } = exampleRecordWithHints(albums, {});
    expect(record).toEqual({ title: 'Example title', cover: null });
    expect(hints).toEqual([{ field: 'cover', hint: 'cover takes a file: send the request as multipart/form-data with a part named cover, or leave it out.' }]);
  });
});

// Example request bodies built from the published schema's column rules
// (the same rules the OpenAPI document publishes and the server checks),
// so the Test console and Data forms start from values the API accepts.
import { isUploadColumn, type SchemaColumn, type SchemaDocument, type SchemaTable } from '../schema/document';
import { browserRegExp, stringMatching } from './patternExample';
import { isEmail } from '../lib/email';
import { emailRule } from '../schema/columnTypes.gen';

/** The body field a column takes: `password` for a `password_hash` column (CONTRACT 5). */
export function bodyFieldName(column: SchemaColumn): string {
  return column.type === 'password' && column.name.endsWith('_hash') ? column.name.slice(0, -5) : column.name;
}

export interface ExampleOptions {
  /**
   * 0 gives the plainest example; another number varies the values of
   * unique columns, so a second create with a fresh example does not
   * collide with the first.
   */
  seed?: number;
  /** An id of an existing record per referenced table, when one exists. */
  referenceIds?: Record<string, unknown>;
}

/** A value, or no value and a hint for the user saying what to fill in. */
export type ColumnExample = { value: unknown; hint?: undefined } | { value: null; hint: string };

// The server's bound on an e-mail's length (schema.EmailMaxLength).
const EMAIL_MAX = emailRule.maxLength;
const MIN_PASSWORD_LENGTH = 8;

/** The example for one column, from its type and rules. */
export function columnExample(column: SchemaColumn, options: ExampleOptions = {}): ColumnExample {
  const seed = column.unique ? (options.seed ?? 0) : 0;
  if (column.references) {
    const id = options.referenceIds?.[column.references.table];
    if (id !== undefined && id !== null) return { value: id };
    return { value: null, hint: `${column.references.table} has no records yet: create one first, then put its id here.` };
  }
  // A file is uploaded, never written in JSON: a body with a file is multipart/form-data.
  if (isUploadColumn(column)) {
    return { value: null, hint: `${column.name} takes ${column.type === 'files' ? 'files' : 'a file'}: send the request as multipart/form-data with a part named ${column.name}, or leave it out.` };
  }
  // A default passes the rules; a unique column's default would collide.
  if (column.default !== undefined && column.default !== null && !column.unique) return { value: column.default };
  switch (column.type) {
    case 'integer':
      return numeric(column, seed, true);
    case 'number':
      return numeric(column, seed, false);
    case 'decimal': {
      // A string: the API keeps every digit of a decimal sent as one.
      const n = numeric(column, seed, false);
      return n.hint === undefined ? { value: decimalText(n.value as number) } : n;
    }
    case 'boolean':
      return { value: seed % 2 === 0 };
    case 'timestamp':
      return { value: new Date(Date.UTC(2026, 0, 31, 12, 0, 0) + seed * 1000).toISOString().replace('.000Z', 'Z') };
    case 'date':
      return { value: new Date(Date.UTC(2026, 0, 31) + (seed % 3650) * 86_400_000).toISOString().slice(0, 10) };
    case 'uuid':
      return { value: seed ? uuidFromSeed(seed) : '00000000-0000-4000-8000-000000000000' };
    case 'enum': {
      const values = column.values ?? [];
      if (values.length === 0) return { value: null, hint: 'This enum has no values.' };
      return { value: values[seed % values.length] };
    }
    case 'json':
      return { value: seed ? { key: 'value', n: seed } : { key: 'value' } };
    case 'email':
      return textual(column, seed ? `user${seed}@example.com` : 'user1@example.com', seed, (s) => isEmail(s) && s === s.toLowerCase(), 0, {
        before: `user${seed || 1}`,
        after: '@example.com',
      });
    case 'url':
      return textual(column, seed ? `https://example.com/${seed}` : 'https://example.com/', seed, (s) => /^https?:\/\/[^\s/?#]+/i.test(s), 0, {
        before: 'https://example.com/',
        after: '',
      });
    case 'password':
      return textual(column, 'correct-horse-battery', seed, undefined, MIN_PASSWORD_LENGTH);
    default:
      return textual(column, `Example ${column.name.replace(/_/g, ' ')}${seed ? ` ${seed}` : ''}`, seed, (s) => !/[<>&]/.test(s));
  }
}

/** Kept for callers that want the value only (a hint's field gets null). */
export function exampleValue(column: SchemaColumn, seed = 0): unknown {
  return columnExample(column, { seed }).value;
}

/**
 * What a number in a column of this name usually looks like, by the words
 * in the name (issue 37: `published_year: 30` was no year). The first
 * match wins; a name that says nothing gets 30, or 9.99 where fractions
 * are allowed.
 */
const PLAUSIBLE_NUMBERS: [RegExp, number, number][] = [
  // [words in the name, integer example, fractional example]
  [/year/, 2024, 2024],
  [/month/, 6, 6],
  [/day/, 15, 15],
  [/hour/, 12, 12],
  [/minute|second/, 30, 30],
  [/(^|_)lat/, 52, 52.52],
  [/(^|_)(lng|lon)/, 13, 13.405],
  [/rating|stars|score/, 4, 4.5],
  [/percent|pct/, 50, 50],
  [/pages/, 320, 320],
  [/(^|_)age(_|$)/, 30, 30],
  [/price|cost|amount|total|fee|salary|balance/, 10, 9.99],
  [/quantity|qty|count|stock|size|number|num/, 3, 3],
  [/weight|kg/, 70, 70.5],
  [/height|width|length|cm/, 170, 170.5],
];

function plausibleNumber(name: string, integer: boolean): number {
  const words = name.toLowerCase();
  const match = PLAUSIBLE_NUMBERS.find(([pattern]) => pattern.test(words));
  if (match) return integer ? match[1] : match[2];
  return integer ? 30 : 9.99;
}

/**
 * A number within min and max: one that fits the column's name
 * (plausibleNumber) when allowed, else the bound nearest to it; unique
 * columns step up from there while they stay within the bounds.
 */
function numeric(column: SchemaColumn, seed: number, integer: boolean): ColumnExample {
  let low = column.min ?? -Infinity;
  let high = column.max ?? Infinity;
  if (integer) {
    low = Math.ceil(low);
    high = Math.floor(high);
  }
  if (low > high) return { value: null, hint: `No ${integer ? 'integer' : 'number'} lies between ${column.min} and ${column.max}.` };
  const preferred = plausibleNumber(column.name, integer);
  let value = Math.min(Math.max(preferred, low), high);
  if (seed) {
    // Step up from the preferred value, wrapping within the bounds.
    const step = integer ? 1 : 0.01;
    const slots = Number.isFinite(high - low) ? Math.floor((high - low) / step) + 1 : 1_000_000_000;
    value += (seed % slots) * step;
    if (value > high) value -= slots * step;
    if (!integer) value = Math.round(value * 100) / 100;
    value = Math.min(Math.max(value, low), high);
  }
  return { value };
}

/** The shortest text that gives back the same number, without an exponent. */
function decimalText(n: number): string {
  const text = String(n);
  if (!/e/i.test(text)) return text;
  return n.toFixed(Math.min(100, Math.max(0, -Math.floor(Math.log10(Math.abs(n))) + 15))).replace(/\.?0+$/, '');
}

function uuidFromSeed(seed: number): string {
  const hex = (seed >>> 0).toString(16).padStart(12, '0').slice(-12);
  return `00000000-0000-4000-8000-${hex}`;
}

/**
 * A string column: the base example when it passes the column's lengths,
 * pattern and type shape; else one made from the pattern; else a hint.
 */
function textual(column: SchemaColumn, base: string, seed: number, shape?: (s: string) => boolean, defaultMin = 0, around?: { before: string; after: string }): ColumnExample {
  const min = column.min_length ?? defaultMin;
  const max = column.type === 'email' ? Math.min(column.max_length ?? EMAIL_MAX, EMAIL_MAX) : column.max_length;
  const pattern = column.pattern ? browserRegExp(column.pattern) : undefined;
  if (column.pattern && !pattern) return { value: null, hint: `Fill in a value matching the pattern ${column.pattern}.` };
  const passes = (s: string) => {
    const length = [...s].length;
    return length >= min && (max === undefined || length <= max) && (!pattern || pattern.test(s)) && (shape?.(s) ?? true);
  };
  if (!column.pattern) {
    const fitted = fitLength(base, min, max);
    if (passes(fitted)) return { value: fitted };
  } else if (passes(base)) return { value: base };
  if (column.pattern) {
    const made = stringMatching(column.pattern, { minLength: min, maxLength: max, seed, accept: shape, around });
    if (made !== undefined) return { value: made };
    return { value: null, hint: `Fill in a value matching the pattern ${column.pattern}${lengthWords(min, max)}.` };
  }
  return { value: null, hint: `Fill in a value${lengthWords(min, max)}.` };
}

/** Pads or cuts the text to the lengths, keeping a unique suffix at the end. */
function fitLength(text: string, min: number, max: number | undefined): string {
  let out = text.length < min ? text + 'x'.repeat(min - text.length) : text;
  if (max !== undefined && out.length > max) {
    const suffix = /\s\d+$/.exec(out)?.[0].trim() ?? '';
    out = suffix && suffix.length < max ? out.slice(0, max - suffix.length) + suffix : out.slice(0, Math.max(max, 0));
  }
  return out;
}

function lengthWords(min: number, max: number | undefined): string {
  if (min > 0 && max !== undefined) return `, ${min} to ${max} characters`;
  if (min > 0) return `, at least ${min} characters`;
  if (max !== undefined) return `, at most ${max} characters`;
  return '';
}

/** The hints of a table's example: the fields the user has to fill in. */
export interface ExampleHint {
  field: string;
  hint: string;
}

/** A create body for a table, every user column by its body field name, and the fields left to the user. */
export function exampleRecordWithHints(table: SchemaTable, options: ExampleOptions = {}): { record: Record<string, unknown>; hints: ExampleHint[] } {
  const record: Record<string, unknown> = {};
  const hints: ExampleHint[] = [];
  for (const column of table.columns) {
    if (column.type === 'passthrough') continue;
    const example = columnExample(column, options);
    // An optional reference with nothing to point at, and an optional
    // file, are left out: null is their value anyway, and the body stays valid.
    if (example.hint !== undefined && (column.references || isUploadColumn(column)) && !column.required) continue;
    record[bodyFieldName(column)] = example.value;
    if (example.hint !== undefined) hints.push({ field: bodyFieldName(column), hint: example.hint });
  }
  return { record, hints };
}

/** A create body for a table: every user column by its body field name. */
export function exampleRecord(table: SchemaTable, seed = 0, referenceIds?: Record<string, unknown>): Record<string, unknown> {
  return exampleRecordWithHints(table, { seed, referenceIds }).record;
}

/** A body for register or login on the auth table. */
export function exampleAuthBody(doc: SchemaDocument, operation: 'register' | 'login', options: ExampleOptions = {}): Record<string, unknown> | undefined {
  const table = doc.tables.find((t) => t.auth);
  if (!table) return undefined;
  if (operation === 'register') return exampleRecordWithHints(table, options).record;
  const email = table.columns.find((c) => c.type === 'email');
  const password = table.columns.find((c) => c.type === 'password');
  return {
    [email ? bodyFieldName(email) : 'email']: email ? columnExample(email).value : 'user1@example.com',
    [password ? bodyFieldName(password) : 'password']: 'correct-horse-battery',
  };
}

// What a Data page cell shows and what an edited cell sends: timestamps in
// the viewer's time zone with the stored ISO value kept for the title,
// decimals as the digits the API sent (lib/exactJson leaves them strings),
// and the column's rules checked before the request, as the server will.
import { maxLengthOf, type SchemaColumn } from '../schema/document';
import { isEmail, normalizeEmail } from '../lib/email';
import { filesText } from './files';

const localTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

export interface CellText {
  text: string;
  /** The exact stored value, when the text shows it another way. */
  title?: string;
}

export function cellText(value: unknown, type: string, format: Intl.DateTimeFormat = localTime): CellText {
  if (value === null || value === undefined) return { text: '—', title: 'null' };
  if (type === 'file' || type === 'files') {
    const text = filesText(value);
    return { text, title: text };
  }
  if (type === 'timestamp' && typeof value === 'string') {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? { text: value } : { text: format.format(date), title: value };
  }
  if (typeof value === 'object') {
    const json = JSON.stringify(value);
    return { text: json, title: json };
  }
  // Numbers arrive as numbers only when a JS number prints them back
  // exactly; other decimals arrive as their digits. Either way: as sent.
  return { text: String(value), title: String(value) };
}

/** The text an editor starts from. */
export function editorText(value: unknown, type: string): string {
  if (value === null || value === undefined) return '';
  if (type === 'json') return JSON.stringify(value);
  return String(value);
}

const DECIMAL_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Whether text is a decimal number the API accepts (no hex, NaN or Infinity). */
export function isDecimalText(text: string): boolean {
  return DECIMAL_TEXT.test(text);
}

export type CellParse = { value: unknown } | { error: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The value to send for the text typed into a cell, or why it cannot be
 * sent: the column's type and constraints, checked as the server checks
 * them so most mistakes are told before a request. The server's verdict
 * still decides (uniqueness, references, its own formats).
 */
export function parseCell(column: SchemaColumn, raw: string): CellParse {
  const text = column.type === 'text' || column.type === 'json' ? raw : raw.trim();
  if (text === '') {
    if (column.required) return { error: 'is required' };
    return { value: null };
  }
  switch (column.type) {
    case 'integer': {
      if (!/^[+-]?\d+$/.test(text)) return { error: 'must be a whole number' };
      const n = Number(text);
      if (!Number.isSafeInteger(n)) return { error: 'is too large' };
      return withinBounds(column, n, n);
    }
    case 'number': {
      const n = Number(text);
      if (!Number.isFinite(n) || !isDecimalText(text)) return { error: 'must be a number' };
      return withinBounds(column, n, n);
    }
    case 'decimal':
      // Sent as typed: the API keeps every digit of a string. The bound
      // check compares a double, close enough to tell a mistake.
      if (!isDecimalText(text)) return { error: 'must be a decimal number' };
      return withinBounds(column, Number(text), text);
    case 'boolean':
      return text === 'true' || text === 'false' ? { value: text === 'true' } : { error: 'must be true or false' };
    case 'json':
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { error: 'must be valid JSON' };
      }
    case 'timestamp': {
      const date = new Date(text);
      return Number.isNaN(date.getTime()) ? { error: 'must be a date and time, e.g. 2026-01-02T03:04:05Z' } : { value: date.toISOString() };
    }
    case 'date':
      return DATE.test(text) && !Number.isNaN(new Date(`${text}T00:00:00Z`).getTime()) ? { value: text } : { error: 'must be a date YYYY-MM-DD' };
    case 'uuid':
      return UUID.test(text) ? { value: text.toLowerCase() } : { error: 'must be a UUID' };
    case 'enum':
      return column.values?.includes(text) ? { value: text } : { error: `must be one of ${(column.values ?? []).join(', ')}` };
    case 'email': {
      if (!isEmail(raw)) return { error: 'invalid e-mail format' };
      // Lengths count the value as sent, as the server does.
      const checked = withinLength(column, raw);
      return 'error' in checked ? checked : { value: normalizeEmail(raw) };
    }
    case 'url':
      if (!/^https?:\/\/[^\s]+$/i.test(text)) return { error: 'must be an http or https URL' };
      return withinLength(column, text);
    default:
      return withinLength(column, text);
  }
}

function withinBounds(column: SchemaColumn, n: number, value: unknown): CellParse {
  if (column.min !== undefined && n < column.min) return { error: `must be at least ${column.min}` };
  if (column.max !== undefined && n > column.max) return { error: `must be at most ${column.max}` };
  return { value };
}

function withinLength(column: SchemaColumn, text: string): CellParse {
  const length = [...text].length;
  if (column.min_length !== undefined && length < column.min_length) return { error: `must be at least ${column.min_length} characters` };
  const max = maxLengthOf(column);
  if (max !== undefined && length > max) return { error: `must be at most ${max} characters` };
  if (column.pattern) {
    let pattern: RegExp | undefined;
    try {
      pattern = new RegExp(column.pattern, 'u');
    } catch {
      pattern = undefined; // a pattern JS cannot read is left to the server
    }
    if (pattern && !pattern.test(text)) return { error: `must match the pattern ${column.pattern}` };
  }
  return { value: text };
}

import { describe, expect, it } from 'vitest';
import { parseExactJson } from '../lib/exactJson';
import type { SchemaColumn } from '../schema/document';
import { cellText, parseCell } from './cells';

const utcFormat = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Kolkata', dateStyle: 'medium', timeStyle: 'medium' });

describe('cellText', () => {
  it('shows a timestamp in the given time zone and keeps the ISO value as the title', () => {
    const shown = cellText('2026-01-02T03:04:05.000000Z', 'timestamp', utcFormat);
    expect(shown.text).toBe('2 Jan 2026, 08:34:05');
    expect(shown.title).toBe('2026-01-02T03:04:05.000000Z');
  });

  it('shows decimals with every digit the API sent', () => {
    const row = parseExactJson('{"price": 12345678901234567890.10, "small": 1.10, "plain": 2.5}') as Record<string, unknown>;
    expect(cellText(row.price, 'decimal').text).toBe('12345678901234567890.10');
    expect(cellText(row.small, 'decimal').text).toBe('1.10');
    expect(cellText(row.plain, 'decimal').text).toBe('2.5');
  });

  it('shows null as a dash and JSON compactly', () => {
    expect(cellText(null, 'text')).toEqual({ text: '—', title: 'null' });
    expect(cellText({ a: [1, 2] }, 'json').text).toBe('{"a":[1,2]}');
  });
});

describe('parseCell', () => {
  const col = (c: Partial<SchemaColumn>): SchemaColumn => ({ name: 'x', type: 'text', ...c });

  it('keeps a decimal as the text typed, checking its bounds', () => {
    expect(parseCell(col({ type: 'decimal', max: 5 }), ' 4.990000000000000001 ')).toEqual({ value: '4.990000000000000001' });
    expect(parseCell(col({ type: 'decimal', max: 5 }), '9.99')).toEqual({ error: 'must be at most 5' });
    expect(parseCell(col({ type: 'decimal' }), '1,5')).toEqual({ error: 'must be a decimal number' });
  });

  it('bounds a unique or indexed text column by what its index holds, counting characters', () => {
    const wide = '😀'.repeat(600);
    expect(parseCell(col({ unique: true }), wide)).toEqual({ value: wide });
    expect(parseCell(col({ unique: true }), `${wide}a`)).toEqual({ error: 'must be at most 600 characters' });
    expect(parseCell(col({ index: true, max_length: 1000 }), 'a'.repeat(601))).toEqual({ error: 'must be at most 600 characters' });
    expect(parseCell(col({ unique: true, max_length: 10 }), 'a'.repeat(11))).toEqual({ error: 'must be at most 10 characters' });
    expect(parseCell(col({}), 'a'.repeat(5000))).toEqual({ value: 'a'.repeat(5000) });
  });

  it('checks integers, required, lengths, patterns and enums', () => {
    expect(parseCell(col({ type: 'integer', min: 1 }), '0')).toEqual({ error: 'must be at least 1' });
    expect(parseCell(col({ type: 'integer' }), '2.5')).toEqual({ error: 'must be a whole number' });
    expect(parseCell(col({ type: 'integer' }), '42')).toEqual({ value: 42 });
    expect(parseCell(col({ required: true }), '')).toEqual({ error: 'is required' });
    expect(parseCell(col({}), '')).toEqual({ value: null });
    expect(parseCell(col({ max_length: 3 }), 'abcd')).toEqual({ error: 'must be at most 3 characters' });
    expect(parseCell(col({ pattern: '^[0-9-]{10,17}$' }), 'Example isbn')).toEqual({ error: 'must match the pattern ^[0-9-]{10,17}$' });
    expect(parseCell(col({ pattern: '^[0-9-]{10,17}$' }), '978-0-00-000000-1')).toEqual({ value: '978-0-00-000000-1' });
    expect(parseCell(col({ type: 'enum', values: ['a', 'b'] }), 'c')).toEqual({ error: 'must be one of a, b' });
  });

  it('lower-cases e-mails, refuses bad ones and converts timestamps and booleans', () => {
    expect(parseCell(col({ type: 'email' }), ' Ada@Example.COM ')).toEqual({ value: 'ada@example.com' });
    expect(parseCell(col({ type: 'email' }), 'ada@')).toEqual({ error: 'invalid e-mail format' });
    expect(parseCell(col({ type: 'timestamp' }), '2026-01-02T03:04:05+01:00')).toEqual({ value: '2026-01-02T02:04:05.000Z' });
    expect(parseCell(col({ type: 'boolean' }), 'false')).toEqual({ value: false });
  });
});

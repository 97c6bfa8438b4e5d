// Example request bodies built from the project's schema document, so the
// Test console and Data forms start from values the API will accept.
import type { SchemaColumn, SchemaDocument, SchemaTable } from '../schema/document';

/** The body field a column takes: `password` for a `password_hash` column (CONTRACT 5). */
export function bodyFieldName(column: SchemaColumn): string {
  return column.type === 'password' && column.name.endsWith('_hash') ? column.name.slice(0, -5) : column.name;
}

export function exampleValue(column: SchemaColumn, seed = 1): unknown {
  if (column.default !== undefined) return column.default;
  if (column.references) return column.type === 'uuid' ? '00000000-0000-4000-8000-000000000001' : 1;
  const min = column.min ?? 0;
  switch (column.type) {
    case 'integer':
      return Math.max(min, Math.min(column.max ?? 30, 30));
    case 'number':
      return Math.max(min, 1.5);
    case 'decimal':
      // A string: the API keeps every digit of a decimal sent as one.
      return String(Math.max(min, 9.99));
    case 'boolean':
      return true;
    case 'timestamp':
      return '2025-01-01T12:00:00Z';
    case 'date':
      return '2025-01-01';
    case 'email':
      return `user${seed}@example.com`;
    case 'url':
      return 'https://example.com';
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
    case 'enum':
      return column.values?.[0] ?? '';
    case 'json':
      return { key: 'value' };
    case 'password':
      return 'correct-horse-battery';
    default:
      return textExample(column);
  }
}

function textExample(column: SchemaColumn): string {
  const base = `Example ${column.name.replace(/_/g, ' ')}`;
  const max = column.max_length ?? 200;
  const min = column.min_length ?? 0;
  const text = base.length < min ? base.padEnd(min, 'x') : base;
  return text.slice(0, Math.max(max, 1));
}

/** A create body for a table: every user column by its body field name. */
export function exampleRecord(table: SchemaTable, seed = 1): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of table.columns) {
    if (column.type === 'passthrough') continue;
    out[bodyFieldName(column)] = exampleValue(column, seed);
  }
  return out;
}

/** A body for register or login on the auth table. */
export function exampleAuthBody(doc: SchemaDocument, operation: 'register' | 'login'): Record<string, unknown> | undefined {
  const table = doc.tables.find((t) => t.auth);
  if (!table) return undefined;
  if (operation === 'register') return exampleRecord(table);
  const email = table.columns.find((c) => c.type === 'email');
  const password = table.columns.find((c) => c.type === 'password');
  return {
    [email ? bodyFieldName(email) : 'email']: email ? exampleValue(email) : 'user1@example.com',
    [password ? bodyFieldName(password) : 'password']: 'correct-horse-battery',
  };
}

// The body the Test console starts an operation with.
import type { SchemaDocument } from '../schema/document';
import { exampleAuthBody, exampleRecordWithHints, type ExampleHint, type ExampleOptions } from './exampleRecord';
import { exampleFromSchema, tableOfPath, type ConsoleOperation, type OpenApiDocument } from './openapi';

const BODY_METHODS = ['POST', 'PUT', 'PATCH'];

export function takesBody(operation: ConsoleOperation): boolean {
  return BODY_METHODS.includes(operation.method) || operation.bodySchema !== undefined;
}

export interface ExampleBody {
  /** Pretty JSON, or '' for an operation without a body. */
  text: string;
  /** Fields the example could not fill with a valid value, and what to put there. */
  hints: ExampleHint[];
}

/** The operation's example body: from the project schema first, then the OpenAPI document. */
export function exampleBodyWithHints(
  operation: ConsoleOperation,
  schema: SchemaDocument | undefined,
  openapi: OpenApiDocument,
  options: ExampleOptions = {},
): ExampleBody {
  if (!takesBody(operation)) return { text: '', hints: [] };
  const own = fromSchema(operation, schema, options);
  const value = own?.value ?? operation.bodyExample ?? exampleFromSchema(openapi, operation.bodySchema) ?? {};
  return { text: JSON.stringify(value, null, 2), hints: own?.hints ?? [] };
}

/** Pretty JSON for the operation's body. */
export function exampleBody(operation: ConsoleOperation, schema: SchemaDocument | undefined, openapi: OpenApiDocument, options: ExampleOptions = {}): string {
  return exampleBodyWithHints(operation, schema, openapi, options).text;
}

/** The tables the operation's example refers to, whose ids it would like. */
export function referencedTables(operation: ConsoleOperation, schema: SchemaDocument | undefined): string[] {
  const table = schema?.tables.find((t) => t.name === tableOfPath(operation.path));
  if (!table || !takesBody(operation)) return [];
  return [...new Set(table.columns.flatMap((c) => (c.references ? [c.references.table] : [])))];
}

function fromSchema(operation: ConsoleOperation, schema: SchemaDocument | undefined, options: ExampleOptions): { value: unknown; hints: ExampleHint[] } | undefined {
  if (!schema) return undefined;
  const plain = (value: unknown) => (value === undefined ? undefined : { value, hints: [] });
  if (operation.path === '/auth/register') {
    const table = schema.tables.find((t) => t.auth);
    return table ? toBody(exampleRecordWithHints(table, options)) : undefined;
  }
  if (operation.path === '/auth/login') return plain(exampleAuthBody(schema, 'login'));
  if (operation.path === '/auth/refresh' || operation.path === '/auth/logout') return plain({ refresh_token: '' });
  const mailed = mailedLinkBody(operation.path, schema);
  if (mailed) return plain(mailed);
  const tableName = tableOfPath(operation.path);
  const table = schema.tables.find((t) => t.name === tableName);
  if (!table) return undefined;
  const { record, hints } = exampleRecordWithHints(table, options);
  if (operation.method !== 'PATCH') return { value: record, hints };
  // A partial update: one field is enough to show the shape; prefer one
  // the example could fill.
  const unfilled = new Set(hints.map((h) => h.field));
  const first = Object.keys(record).find((k) => !/password/.test(k) && !unfilled.has(k));
  return { value: first ? { [first]: record[first] } : {}, hints: [] };
}

/** The bodies of the auth routes that mail a link or take its token (the token is pasted from the link). */
function mailedLinkBody(path: string, schema: SchemaDocument): Record<string, unknown> | undefined {
  const email = () => exampleAuthBody(schema, 'login')?.email ?? 'user1@example.com';
  switch (path) {
    case '/auth/password-reset':
    case '/auth/verify-email/resend':
      return { email: email() };
    case '/auth/password-reset/confirm':
      return { token: '', password: 'a-new-password' };
    case '/auth/verify-email':
    case '/auth/email-change/confirm':
      return { token: '' };
    case '/auth/email-change':
      return { new_email: 'new.address@example.com' };
  }
  return undefined;
}

function toBody(example: { record: Record<string, unknown>; hints: ExampleHint[] }) {
  return { value: example.record, hints: example.hints };
}

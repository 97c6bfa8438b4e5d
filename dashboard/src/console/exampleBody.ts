// The body the Test console starts an operation with.
import type { SchemaDocument } from '../schema/document';
import { exampleAuthBody, exampleRecord } from './exampleRecord';
import { exampleFromSchema, tableOfPath, type ConsoleOperation, type OpenApiDocument } from './openapi';

const BODY_METHODS = ['POST', 'PUT', 'PATCH'];

export function takesBody(operation: ConsoleOperation): boolean {
  return BODY_METHODS.includes(operation.method) || operation.bodySchema !== undefined;
}

/** Pretty JSON for the operation's body: from the project schema first, then the OpenAPI document. */
export function exampleBody(operation: ConsoleOperation, schema: SchemaDocument | undefined, openapi: OpenApiDocument): string {
  if (!takesBody(operation)) return '';
  const value = fromSchema(operation, schema) ?? operation.bodyExample ?? exampleFromSchema(openapi, operation.bodySchema) ?? {};
  return JSON.stringify(value, null, 2);
}

function fromSchema(operation: ConsoleOperation, schema: SchemaDocument | undefined): unknown {
  if (!schema) return undefined;
  if (operation.path === '/auth/register') return exampleAuthBody(schema, 'register');
  if (operation.path === '/auth/login') return exampleAuthBody(schema, 'login');
  if (operation.path === '/auth/refresh' || operation.path === '/auth/logout') return { refresh_token: '' };
  const tableName = tableOfPath(operation.path);
  const table = schema.tables.find((t) => t.name === tableName);
  if (!table) return undefined;
  const record = exampleRecord(table);
  if (operation.method !== 'PATCH') return record;
  // A partial update: one field is enough to show the shape.
  const first = Object.keys(record).find((k) => !/password/.test(k));
  return first ? { [first]: record[first] } : {};
}

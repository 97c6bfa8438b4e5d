// The Test console's form body (docs/files.md): a create, replace or
// update of a table with file columns, or a file upload, sent as
// multipart/form-data. A field goes as the text typed (empty: not sent),
// a chosen file as a part named after its column (repeated for a files
// column); the browser writes the Content-Type with its boundary.
import { partText } from '../grid/files';
import { isUploadColumn, type SchemaColumn, type SchemaDocument, type SchemaTable } from '../schema/document';
import { bodyFieldName } from './exampleRecord';
import { resolveRef, type ConsoleOperation, type OpenApiDocument } from './openapi';
import type { FormPart } from './snippets';

export interface FormField {
  /** The part's name: the body field (`password` for a `password_hash` column). */
  name: string;
  /** text: the part's text as typed; file: one file; files: a list of them. */
  kind: 'text' | 'file' | 'files';
  /** The table's column behind the field, for its rules and the way its value is written. */
  column?: SchemaColumn;
}

/** What the user filled in: each field's text and each file field's chosen files. */
export interface FormBody {
  values: Record<string, string>;
  files: Record<string, File[]>;
}

export const emptyFormBody: FormBody = { values: {}, files: {} };

const NAME = '[a-z][a-z0-9_]*';

/** The table a write of one record addresses (POST /t, PUT or PATCH /t/{id}): the writes that take multipart/form-data. */
function recordWriteTable(operation: ConsoleOperation): string | undefined {
  const create = new RegExp(`^/(${NAME})$`).exec(operation.path);
  if (operation.method === 'POST' && create) return create[1];
  const one = new RegExp(`^/(${NAME})/\\{[^}]+\\}$`).exec(operation.path);
  if ((operation.method === 'PUT' || operation.method === 'PATCH') && one) return one[1];
  return undefined;
}

/** An upload operation (POST /<table>/files/<column>): its body is a form and nothing else. */
export function takesFormOnly(operation: ConsoleOperation): boolean {
  return operation.formSchema !== undefined && operation.bodySchema === undefined;
}

/**
 * The fields of the form body the operation can take, or undefined when it
 * takes JSON only: an upload's parts as the document describes them, or
 * every column a write of a table with a file column sets.
 */
export function formFields(operation: ConsoleOperation, schema: SchemaDocument | undefined, openapi?: OpenApiDocument): FormField[] | undefined {
  if (takesFormOnly(operation)) return uploadFields(operation, schema, openapi);
  const name = recordWriteTable(operation);
  const table = schema?.tables.find((t) => t.name === name);
  if (!table || name === 'auth' || !table.columns.some(isUploadColumn)) return undefined;
  return writableColumns(table).map((column) => ({
    name: bodyFieldName(column),
    kind: isUploadColumn(column) ? (column.type === 'files' ? 'files' : 'file') : 'text',
    column,
  }));
}

function writableColumns(table: SchemaTable): SchemaColumn[] {
  return table.columns.filter((c) => c.type !== 'passthrough');
}

function uploadFields(operation: ConsoleOperation, schema: SchemaDocument | undefined, openapi: OpenApiDocument | undefined): FormField[] {
  const match = new RegExp(`^/(${NAME})/files/(${NAME})$`).exec(operation.path);
  const column = schema?.tables.find((t) => t.name === match?.[1])?.columns.find((c) => c.name === match?.[2]);
  const properties = operation.formSchema?.properties ?? {};
  const fields: FormField[] = Object.entries(properties).map(([name, property]) => {
    const p = openapi ? resolveRef(openapi, property) : property;
    const isFile = p.contentMediaType !== undefined || p.format === 'binary';
    return isFile ? { name, kind: 'file', column } : { name, kind: 'text' };
  });
  return fields.length > 0 ? fields : [{ name: 'file', kind: 'file', column }];
}

/**
 * The form's field texts from a JSON body (the example, or what the user
 * wrote), the way the server reads a part back: text-like values as they
 * are, numbers, booleans and json as JSON, null as an empty field. A body
 * that is not a JSON object gives empty fields.
 */
export function formValuesFromJson(fields: FormField[], text: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const record = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  const values: Record<string, string> = {};
  for (const field of fields) {
    if (field.kind !== 'text') continue;
    const value = record[field.name];
    values[field.name] = field.column ? partText(field.column, value) : typeof value === 'string' ? value : value == null ? '' : JSON.stringify(value);
  }
  return values;
}

/** The parts the form sends, in field order: each filled-in field's text, then each chosen file (by name, for code to copy). */
export function formParts(fields: FormField[], body: FormBody): FormPart[] {
  return fields.flatMap((field): FormPart[] => {
    if (field.kind === 'text') {
      const value = body.values[field.name] ?? '';
      return value === '' ? [] : [{ name: field.name, value }];
    }
    return (body.files[field.name] ?? []).map((file) => ({ name: field.name, fileName: file.name }));
  });
}

/** The multipart/form-data body of the form. */
export function buildFormData(fields: FormField[], body: FormBody): FormData {
  const form = new FormData();
  for (const field of fields) {
    if (field.kind === 'text') {
      const value = body.values[field.name] ?? '';
      if (value !== '') form.append(field.name, value);
      continue;
    }
    for (const file of body.files[field.name] ?? []) form.append(field.name, file, file.name);
  }
  return form;
}

// The Data page's record form: column values as the strings inputs hold,
// converted to the JSON body the generated API takes.
import { isUploadColumn, type SchemaColumn, type SchemaTable } from '../schema/document';
import { parseCell, type CellParse } from '../grid/cells';
import { bodyFieldName } from './exampleRecord';

export type FormValues = Record<string, string>;

export function editableColumns(table: SchemaTable): SchemaColumn[] {
  return table.columns.filter((c) => c.type !== 'passthrough');
}

export function initialFormValues(table: SchemaTable, record?: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const column of editableColumns(table)) {
    const field = bodyFieldName(column);
    const value = record ? record[column.name] : column.default;
    // A file is chosen in its own input (grid/files.ts), never typed.
    if (column.type === 'password' || isUploadColumn(column) || value === undefined || value === null) values[field] = '';
    else if (column.type === 'json') values[field] = JSON.stringify(value, null, 2);
    else values[field] = String(value);
  }
  return values;
}

/**
 * The body to send and the fields that cannot be converted. For an edit
 * (`original` given) only changed fields are sent, and a blank password
 * means "keep it".
 */
export function formToBody(
  table: SchemaTable,
  values: FormValues,
  original?: FormValues,
): { body: Record<string, unknown>; errors: Record<string, string> } {
  const body: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const column of editableColumns(table)) {
    // Files go in the write's multipart parts (grid/files.ts recordWriteBody).
    if (isUploadColumn(column)) continue;
    const field = bodyFieldName(column);
    const raw = values[field] ?? '';
    if (original && raw === (original[field] ?? '')) continue;
    if (raw.trim() === '') {
      if (column.type === 'password') continue;
      if (original || column.required) body[field] = null;
      continue;
    }
    const converted = convert(column, raw);
    if ('error' in converted) errors[field] = converted.error;
    else body[field] = converted.value;
  }
  // A create leaves optional blanks out so defaults apply.
  if (!original) for (const [k, v] of Object.entries(body)) if (v === null) delete body[k];
  return { body, errors };
}

// Kept here for the modules that import it from the form.
export { isDecimalText } from '../grid/cells';

/** A field's value as the cell editor reads it: the same checks, the same words. */
function convert(column: SchemaColumn, raw: string): CellParse {
  return parseCell(column, raw);
}

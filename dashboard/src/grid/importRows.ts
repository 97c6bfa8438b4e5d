// Import of a CSV or JSON file into a table through the bulk create
// (POST of an array: every row or none). The file is read into rows of
// named values, its columns are mapped to the table's fields, and the
// server's per-row errors ("3.email") are turned back into file rows.
import { parseExactJson } from '../lib/exactJson';
import { isUploadColumn, type SchemaColumn, type SchemaTable } from '../schema/document';
import { bodyFieldName } from '../console/exampleRecord';
import { parseCell } from './cells';
import { parseCsv } from './csv';

export interface ImportFile {
  kind: 'csv' | 'json';
  /** The file's column names: the CSV header, or the keys of the JSON objects in order of first use. */
  headers: string[];
  rows: Record<string, unknown>[];
}

export class ImportFileError extends Error {}

/** The rows of a .csv, .json (an array of objects) or .ndjson file. */
export function readImportText(name: string, text: string): ImportFile {
  const lower = name.toLowerCase();
  const trimmed = text.trim();
  if (lower.endsWith('.json') || lower.endsWith('.ndjson') || trimmed.startsWith('[') || trimmed.startsWith('{')) {
    return jsonFile(trimmed);
  }
  let records: string[][];
  try {
    records = parseCsv(text);
  } catch (error) {
    throw new ImportFileError((error as Error).message);
  }
  const [header, ...body] = records;
  if (!header) throw new ImportFileError('the file is empty');
  const headers = header.map((h) => h.trim());
  const rows = body.map((fields, index) => {
    if (fields.length !== headers.length) throw new ImportFileError(`row ${index + 1} has ${fields.length} fields, the header ${headers.length}`);
    return Object.fromEntries(headers.map((h, i) => [h, fields[i] ?? '']));
  });
  return { kind: 'csv', headers, rows };
}

function jsonFile(text: string): ImportFile {
  let items: unknown[];
  try {
    // Decimals keep their digits: numbers a double cannot hold stay strings.
    items = text.startsWith('[')
      ? (parseExactJson(text) as unknown[])
      : text
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => parseExactJson(line));
  } catch (error) {
    throw new ImportFileError(`not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(items)) throw new ImportFileError('a JSON file must hold an array of objects (or one object per line)');
  const headers: string[] = [];
  const rows = items.map((item, index) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new ImportFileError(`item ${index + 1} is not an object`);
    for (const key of Object.keys(item)) if (!headers.includes(key)) headers.push(key);
    return item as Record<string, unknown>;
  });
  return { kind: 'json', headers, rows };
}

/** File column → table field; '' leaves the file column out. */
export type ImportMapping = Record<string, string>;

const normalized = (name: string) => name.trim().toLowerCase().replace(/[\s-]+/g, '_');

/**
 * The fields an import may fill: not passthrough columns, and not file
 * columns, whose files are uploaded one record at a time (multipart).
 */
export function importableFields(table: SchemaTable): string[] {
  return table.columns.filter((c) => c.type !== 'passthrough' && !isUploadColumn(c)).map(bodyFieldName);
}

/** Maps each file column to the writable field of the same name (case and spaces aside); system columns are left out. */
export function suggestMapping(headers: string[], table: SchemaTable): ImportMapping {
  const fields = importableFields(table);
  const mapping: ImportMapping = {};
  for (const header of headers) {
    mapping[header] = fields.find((f) => normalized(f) === normalized(header)) ?? '';
  }
  return mapping;
}

/** A problem of one file row: its position (0 = first data row) and field. */
export interface RowProblem {
  row: number;
  field: string;
  message: string;
}

/**
 * The bulk create body: one object per file row with the mapped fields.
 * CSV text is converted by the column's type (empty = left out, so the
 * default applies); JSON values are sent as they are. Problems found on
 * the way are returned instead of sending a body the server would refuse.
 */
export function importBodies(file: ImportFile, mapping: ImportMapping, table: SchemaTable): { bodies: Record<string, unknown>[]; problems: RowProblem[] } {
  const byField = new Map(table.columns.map((c) => [bodyFieldName(c), c]));
  const problems: RowProblem[] = [];
  const seen = new Set<string>();
  for (const [header, field] of Object.entries(mapping)) {
    if (!field) continue;
    if (seen.has(field)) problems.push({ row: -1, field, message: `two file columns are mapped to ${field} (one is "${header}")` });
    seen.add(field);
  }
  // Every problem is told at once: a required field no file column fills
  // is one line, not one per row after a round trip.
  for (const column of table.columns) {
    const field = bodyFieldName(column);
    if (column.required && isUploadColumn(column)) {
      problems.push({ row: -1, field, message: 'is a required file column: records with files are created one at a time with New record' });
    } else if (column.required && column.default === undefined && column.type !== 'passthrough' && !seen.has(field)) {
      problems.push({ row: -1, field, message: 'is required; map a file column to it' });
    }
  }
  const bodies = file.rows.map((row, index) => {
    const body: Record<string, unknown> = {};
    for (const [header, field] of Object.entries(mapping)) {
      const column = byField.get(field);
      if (!field || !column) continue;
      const value = row[header];
      if (value === undefined) {
        if (column.required && column.default === undefined) problems.push({ row: index, field, message: 'is required' });
        continue;
      }
      if (file.kind === 'json' || typeof value !== 'string') {
        body[field] = value;
        const why = jsonValueProblem(column, value);
        if (why) problems.push({ row: index, field, message: why });
        continue;
      }
      if (value === '' && !column.required) continue;
      // Password columns take plain text: the cell rules do not apply.
      const parsed = column.type === 'password' ? { value } : parseCell(column, value);
      if ('error' in parsed) problems.push({ row: index, field, message: parsed.error });
      else body[field] = parsed.value;
    }
    return body;
  });
  problems.sort((a, b) => a.row - b.row); // stable: a row's fields stay in file order
  return { bodies, problems };
}

/**
 * What the cell rules say of a JSON file's value, sent as it is: a missing
 * required value, and a number or text out of its column's bounds or
 * format. A value of another JSON type is left for the server to name.
 */
function jsonValueProblem(column: SchemaColumn, value: unknown): string | undefined {
  if (value === null) return column.required ? 'is required' : undefined;
  if (column.type === 'json' || column.type === 'password') return undefined;
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : undefined;
  if (text === undefined) return undefined;
  const numeric = column.type === 'integer' || column.type === 'number' || column.type === 'decimal';
  if (numeric !== (typeof value === 'number') && !(column.type === 'decimal' && typeof value === 'string')) return undefined;
  const parsed = parseCell(column, text);
  return 'error' in parsed ? parsed.error : undefined;
}

/** The server's bulk-create details (`{"3.email": "...", "4": "...", "body": "..."}`) as row problems. */
export function problemsFromDetails(details: Record<string, string>): RowProblem[] {
  return Object.entries(details)
    .map(([key, message]) => {
      const match = /^(\d+)(?:\.(.+))?$/.exec(key);
      return match ? { row: Number(match[1]), field: match[2] ?? '', message } : { row: -1, field: key, message };
    })
    .sort((a, b) => a.row - b.row || a.field.localeCompare(b.field));
}

/** The most rows one import sends (the server's default `max_bulk_rows`). */
export const MAX_IMPORT_ROWS = 1000;

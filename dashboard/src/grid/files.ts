// File and files columns on the Data page (docs/files.md): what a record
// shows of its files, what a chosen file is checked against before it is
// sent, and the multipart/form-data body a write with files takes.
import { DEFAULT_MAX_FILES, formatBytes } from '../builder/fileSettings';
import { bodyFieldName } from '../console/exampleRecord';
import { columnTypeInfo, isUploadColumn, type SchemaColumn, type SchemaTable } from '../schema/document';

/** A file as a record shows it: its stored name, size in bytes, media type (sniffed from the content) and download path. */
export interface StoredFile {
  name: string;
  size: number;
  type: string;
  url: string;
}

function isStoredFile(value: unknown): value is StoredFile {
  const f = value as Partial<StoredFile> | null;
  return typeof f === 'object' && f !== null && typeof f.name === 'string' && typeof f.url === 'string';
}

/** The files a record's value holds: none for null, one for a file column, the list for a files column. */
export function storedFiles(value: unknown): StoredFile[] {
  if (Array.isArray(value)) return value.filter(isStoredFile);
  return isStoredFile(value) ? [value] : [];
}

/** Whether the browser can show the file as an image. */
export function isImageFile(file: Pick<StoredFile, 'type'>): boolean {
  return file.type.startsWith('image/');
}

/** A file in words: `cover_x2.png (12 KB)`. */
export function fileLabel(file: Pick<StoredFile, 'name' | 'size'>): string {
  return `${file.name} (${formatBytes(file.size)})`;
}

/** What a cell says of its files, for its text and its accessible name. */
export function filesText(value: unknown): string {
  const files = storedFiles(value);
  if (files.length === 0) return 'no file';
  if (files.length === 1 && files[0]) return fileLabel(files[0]);
  return `${files.length} files: ${files.map((f) => f.name).join(', ')}`;
}

/**
 * Whether a download path may be fetched with the credential: only one of
 * this origin's generated API (a record's url is a path on the API host).
 */
export function isApiFileUrl(url: string, origin: string): boolean {
  try {
    const resolved = new URL(url, origin);
    return resolved.origin === origin && resolved.pathname.startsWith('/v1/');
  } catch {
    return false;
  }
}

/** The file input's `accept`: the column's media types (the server still sniffs the content). */
export function acceptOf(column: SchemaColumn): string | undefined {
  return column.mime_types?.length ? column.mime_types.join(',') : undefined;
}

/** The files a files column holds at most. */
export function maxFilesOf(column: SchemaColumn): number {
  return column.max_files ?? DEFAULT_MAX_FILES;
}

/**
 * Why the chosen files would be refused, in the server's words, or
 * undefined: too many for the column, or a file over its max_size. The
 * media type is left to the server, which reads it from the content.
 */
export function chosenFilesProblem(column: SchemaColumn, files: readonly Pick<File, 'name' | 'size'>[]): string | undefined {
  if (column.type === 'files' && files.length > maxFilesOf(column)) return `must hold at most ${maxFilesOf(column)} files`;
  if (column.type === 'file' && files.length > 1) return 'holds one file';
  const max = column.max_size;
  if (max === undefined) return undefined;
  const big = files.find((f) => f.size > max);
  if (!big) return undefined;
  const words = `is ${big.size} bytes, more than the column's max_size of ${max}`;
  return column.type === 'files' ? `${big.name}: ${words}` : words;
}

/** A file field's change: files to upload (they replace what the record holds), or null to remove them; no entry (or no files) keeps them. */
export type FileChanges = Record<string, File[] | null>;

/** Whether any field has files to upload: the write is then multipart/form-data. */
export function uploadsFiles(changes: FileChanges): boolean {
  return Object.values(changes).some((files) => files !== null && files.length > 0);
}

/**
 * A field's value as the text of a multipart part, the way the server
 * reads it back (files.fieldValue): null is an empty part; text-like,
 * date and UUID columns take the text; numbers, booleans, decimals and
 * json take JSON.
 */
export function partText(column: SchemaColumn | undefined, value: unknown): string {
  if (value === null || value === undefined) return '';
  const literal = column ? columnTypeInfo(column.type)?.literal : undefined;
  if (column && literal === 'string' && column.type !== 'json' && typeof value === 'string') return value;
  return JSON.stringify(value);
}

/**
 * The body of a write of one record: the JSON body as it is when no file
 * is uploaded (a removed file is null), else multipart/form-data with the
 * other fields as text parts and each file as a part named after its
 * column (repeated for a files column). The browser sets the Content-Type
 * with its boundary.
 */
export function recordWriteBody(table: SchemaTable, body: Record<string, unknown>, changes: FileChanges): Record<string, unknown> | FormData {
  const removed = Object.fromEntries(Object.entries(changes).filter(([, files]) => files === null).map(([field]) => [field, null]));
  if (!uploadsFiles(changes)) return { ...body, ...removed };
  const byField = new Map(table.columns.map((c) => [bodyFieldName(c), c]));
  const form = new FormData();
  for (const [field, value] of Object.entries({ ...body, ...removed })) {
    form.append(field, partText(byField.get(field), value));
  }
  for (const [field, files] of Object.entries(changes)) {
    for (const file of files ?? []) form.append(field, file, file.name);
  }
  return form;
}

/** The table's file columns. */
export function uploadColumns(table: SchemaTable): SchemaColumn[] {
  return table.columns.filter(isUploadColumn);
}

/** A file column's rules in words, for its input's description: `image/* · at most 5 MB each · up to 10 files`. */
export function fileRulesText(column: SchemaColumn): string {
  const parts = [column.mime_types?.length ? column.mime_types.join(', ') : 'any type'];
  if (column.max_size !== undefined) parts.push(`at most ${formatBytes(column.max_size)}${column.type === 'files' ? ' each' : ''}`);
  if (column.type === 'files') parts.push(`up to ${maxFilesOf(column)} files`);
  return parts.join(' · ');
}

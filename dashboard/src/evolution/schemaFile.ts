// Reading a schema.json the user picks for upload. The server is the judge
// of the document (unknown keys, names, types); this only makes sure the
// file is a schema document at all, so that a wrong file (a package.json,
// `{}`) never silently empties the draft.
import type { SchemaDocument } from '../schema/document';

export type SchemaFileResult = { ok: true; document: SchemaDocument } | { ok: false; error: string };

/** Files bigger than this are refused before reading (the server takes 1 MiB bodies). */
export const MAX_SCHEMA_FILE_BYTES = 1024 * 1024;

export function parseSchemaFile(text: string): SchemaFileResult {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (!trimmed) return { ok: false, error: 'The file is empty.' };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (error) {
    return { ok: false, error: `The file is not valid JSON: ${(error as Error).message}` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: 'The file must hold a schema document: a JSON object {"tables": [...]}.' };
  }
  const tables = (value as { tables?: unknown }).tables;
  if (!Array.isArray(tables)) {
    return { ok: false, error: 'The file has no "tables" list, so it is not a schema document (download one to see the format).' };
  }
  if (tables.some((t) => !t || typeof t !== 'object' || Array.isArray(t))) {
    return { ok: false, error: 'Every entry of "tables" must be a table object.' };
  }
  return { ok: true, document: value as SchemaDocument };
}

/** The problems the server found in an uploaded draft, ordered by their place in the document. */
export function sortedProblems(problems: Record<string, string> | undefined): [string, string][] {
  return Object.entries(problems ?? {}).sort(([a], [b]) => comparePaths(a, b));
}

function comparePaths(a: string, b: string): number {
  const pa = a.split(/[.[\]]+/).filter(Boolean);
  const pb = b.split(/[.[\]]+/).filter(Boolean);
  for (const [i, sa] of pa.entries()) {
    const sb = pb[i];
    if (sb === undefined) break;
    if (sa === sb) continue;
    const na = Number(sa);
    const nb = Number(sb);
    if (Number.isInteger(na) && Number.isInteger(nb)) return na - nb;
    return sa < sb ? -1 : 1;
  }
  return pa.length - pb.length;
}

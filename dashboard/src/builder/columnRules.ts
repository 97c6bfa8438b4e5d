// Which constraints of CONTRACT 4.1 apply to which column type, from the
// type's traits in the server's registry. The editor shows only these, and
// a type change drops the ones that no longer apply.
import { traitsOf, type SchemaColumn } from '../schema/document';

export type ConstraintKey = Exclude<keyof SchemaColumn, 'name' | 'type' | 'renamed_from' | 'pg_type'>;

const ALWAYS: ConstraintKey[] = ['description', 'required'];

export function constraintsFor(type: string, hasReference = false): Set<ConstraintKey> {
  const keys = new Set<ConstraintKey>(ALWAYS);
  const traits = traitsOf(type);
  if (traits?.unique) keys.add('unique');
  if (traits?.indexable) keys.add('index');
  // A password keeps only hashes, a file column only uploaded files: neither takes a default.
  if (!traits?.secret && !traits?.upload) keys.add('default');
  if (traits?.upload) {
    keys.add('max_size');
    keys.add('mime_types');
    // Not offered yet (the server does not make thumbnails), but kept when the document has it.
    keys.add('thumbnails');
  }
  if (traits?.many) keys.add('max_files');
  if (traits?.numeric) {
    keys.add('min');
    keys.add('max');
  }
  // An enum's values bound themselves; a password's pattern stays unsaid.
  if (traits?.lengths && !traits.enumerated) {
    keys.add('min_length');
    keys.add('max_length');
    if (!traits.secret) keys.add('pattern');
  }
  if (traits?.enumerated) keys.add('values');
  if (traits?.textual) keys.add('searchable');
  if (traits?.markup) keys.add('html');
  if (traits?.key) keys.add('references');
  if (hasReference) {
    keys.add('relation');
    keys.add('reverse_relation');
  }
  return keys;
}

/** The column with every constraint its (new) type does not take removed. */
export function withTypeConstraints(column: SchemaColumn): SchemaColumn {
  const allowed = constraintsFor(column.type, Boolean(column.references));
  const out: SchemaColumn = { name: column.name, type: column.type };
  for (const [key, value] of Object.entries(column) as [keyof SchemaColumn, unknown][]) {
    if (key === 'name' || key === 'type') continue;
    if (key === 'renamed_from' || key === 'pg_type' || allowed.has(key as ConstraintKey)) {
      (out as unknown as Record<string, unknown>)[key] = value;
    }
  }
  return out;
}

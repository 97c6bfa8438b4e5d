// Which constraints of CONTRACT 4.1 apply to which column type. The editor
// shows only these, and a type change drops the ones that no longer apply.
import { NUMERIC_TYPES, SEARCHABLE_TYPES, type SchemaColumn } from '../schema/document';

export type ConstraintKey = Exclude<keyof SchemaColumn, 'name' | 'type' | 'renamed_from' | 'pg_type'>;

const ALWAYS: ConstraintKey[] = ['description', 'required'];

export function constraintsFor(type: string, hasReference = false): Set<ConstraintKey> {
  const keys = new Set<ConstraintKey>(ALWAYS);
  if (type !== 'password' && type !== 'json') {
    keys.add('unique');
    keys.add('index');
  }
  if (type !== 'password') keys.add('default');
  if (NUMERIC_TYPES.includes(type)) {
    keys.add('min');
    keys.add('max');
  }
  if (['text', 'email', 'url', 'password'].includes(type)) {
    keys.add('min_length');
    keys.add('max_length');
  }
  if (['text', 'email', 'url'].includes(type)) keys.add('pattern');
  if (type === 'enum') keys.add('values');
  if (SEARCHABLE_TYPES.includes(type)) keys.add('searchable');
  if (type === 'text') keys.add('html');
  if (type === 'integer' || type === 'uuid') keys.add('references');
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

// The dashboard's copy of the server's column-type registry
// (columnTypes.gen.ts, checked against the registry by
// schema/dashboard_test.go) drives the builder: every type it offers gets
// a label, the constraints its traits allow, and accepts its own example.
import { describe, expect, it } from 'vitest';
import { constraintsFor } from '../builder/columnRules';
import { validateDocument } from '../builder/validation';
import { columnTypes } from './columnTypes.gen';
import { COLUMN_TYPES, TYPE_LABELS, type SchemaColumn } from './document';

const offered = columnTypes.filter((t) => t.offered);

describe('the column-type registry in the dashboard', () => {
  it('offers the types the server offers, each with a label', () => {
    expect(COLUMN_TYPES).toEqual(offered.map((t) => t.name));
    for (const t of COLUMN_TYPES) expect(TYPE_LABELS[t]).toBeTruthy();
    expect(COLUMN_TYPES).not.toContain('passthrough');
  });

  it.each(offered.map((t) => [t.name, t] as const))('%s accepts its example as a default where defaults apply', (_name, t) => {
    const column: SchemaColumn = { name: 'c', type: t.name };
    if (t.traits.enumerated) column.values = [String(t.example)];
    if (constraintsFor(t.name).has('default')) column.default = t.example;
    expect(validateDocument({ tables: [{ name: 't', columns: [column] }] })).toEqual({});
  });

  it('derives the constraints from the traits', () => {
    expect([...constraintsFor('text')].sort()).toEqual(
      ['default', 'description', 'html', 'index', 'max_length', 'min_length', 'pattern', 'required', 'searchable', 'unique'].sort(),
    );
    expect([...constraintsFor('password')].sort()).toEqual(['description', 'max_length', 'min_length', 'required'].sort());
    expect([...constraintsFor('json')].sort()).toEqual(['default', 'description', 'required'].sort());
    expect([...constraintsFor('integer', true)].sort()).toEqual(
      ['default', 'description', 'index', 'max', 'min', 'references', 'relation', 'required', 'reverse_relation', 'unique'].sort(),
    );
  });
});

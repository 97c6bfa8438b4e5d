// The schema documents of schema/testdata/agreement.json, run through the
// builder's validation: each must find problems at exactly the paths the Go
// validator (schema.Validate, the authority) finds, which
// schema/agreement_test.go checks against the same file.
import { describe, expect, it } from 'vitest';
import agreement from '../../../schema/testdata/agreement.json';
import type { SchemaDocument } from '../schema/document';
import { validateDocument } from './validation';

interface AgreementCase {
  name: string;
  document: SchemaDocument;
  problems: string[];
}

const file = agreement as unknown as { cases: AgreementCase[] };

describe('validation agrees with the Go validator', () => {
  it('has enough cases to mean something', () => {
    expect(file.cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(file.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const doc: SchemaDocument = { tables: (c.document.tables ?? []).map((t) => ({ ...t, columns: t.columns ?? [] })) };
    expect(Object.keys(validateDocument(doc)).sort()).toEqual([...c.problems].sort());
  });
});

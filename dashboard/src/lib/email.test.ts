// The shared e-mail cases of schema/testdata/formats.json, which the Go
// validator (schema/formats_test.go) and the OpenAPI document's pattern in
// ECMA-262 (openapi/typed_test.go) run too.
import { describe, expect, it } from 'vitest';
import formats from '../../../schema/testdata/formats.json';
import { isEmail, normalizeEmail } from './email';

const cases = (formats as { email: { accept: string[]; refuse: string[] } }).email;

describe('the e-mail rule', () => {
  it('has the shared cases', () => {
    expect(cases.accept.length).toBeGreaterThanOrEqual(10);
    expect(cases.refuse.length).toBeGreaterThanOrEqual(20);
  });
  it.each(cases.accept.map((s) => [JSON.stringify(s), s] as const))('accepts %s', (_shown, s) => {
    expect(isEmail(s)).toBe(true);
  });
  it.each(cases.refuse.map((s) => [JSON.stringify(s), s] as const))('refuses %s', (_shown, s) => {
    expect(isEmail(s)).toBe(false);
  });
  it('stores the address trimmed and in lower case, as the server does', () => {
    expect(normalizeEmail(' \tAnn@Example.COM\n')).toBe('ann@example.com');
    expect(normalizeEmail('\u00a0a@b.co')).toBe('\u00a0a@b.co');
  });
});

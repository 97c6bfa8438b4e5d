import { describe, expect, it } from 'vitest';
import { analyticsQueryString } from './analytics-query';

describe('analytics query', () => {
  it('sends only the named range: the server refuses range together with from/to', () => {
    expect(analyticsQueryString('7d')).toBe('range=7d');
  });
});

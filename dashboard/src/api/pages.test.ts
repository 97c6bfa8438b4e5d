import { describe, expect, it } from 'vitest';
import { beforePage, beforeQuery } from './pages';

describe('pages read by before=', () => {
  it('asks for the newest page first, then before the id the server named', () => {
    expect(beforeQuery(50, null)).toBe('limit=50');
    expect(beforeQuery(50, 41)).toBe('limit=50&before=41');
  });
  it('follows meta.next_before and stops where the server named none, even after a full page', () => {
    const full = Array.from({ length: 3 }, (_, i) => ({ id: 10 - i }));
    expect(beforePage({ data: full, meta: { next_before: 8 } })).toEqual({ items: full, nextBefore: 8 });
    expect(beforePage({ data: full, meta: { next_before: null } }).nextBefore).toBeNull();
    expect(beforePage({ data: [] }).nextBefore).toBeNull();
    expect(beforePage({ data: full, meta: { next_before: '8' } }).nextBefore).toBeNull();
  });
});

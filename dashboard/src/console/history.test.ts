import { beforeEach, describe, expect, it } from 'vitest';
import { readHistory } from './history';

// The unit tests run in Node: a small in-memory localStorage stands in.
beforeEach(() => {
  const items = new Map<string, string>();
  globalThis.localStorage = {
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
    removeItem: (k: string) => void items.delete(k),
    clear: () => items.clear(),
    key: (i: number) => [...items.keys()][i] ?? null,
    get length() {
      return items.size;
    },
  };
});

describe('readHistory', () => {
  it('keeps well-formed entries and drops the rest instead of breaking the page', () => {
    const good = { at: '2026-11-28T08:00:00Z', operationId: 'GET /notes', method: 'GET', path: '/notes', url: '/v1/p/notes', status: 200, timeMs: 3 };
    localStorage.setItem('tablesmith.history.p', JSON.stringify([good, { method: 'GET', path: '/notes' }, null, 'x']));
    expect(readHistory('p')).toEqual([good]);
  });
});

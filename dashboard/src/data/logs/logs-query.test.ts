import { describe, expect, it } from 'vitest';
import { logsQueryString, pathPrefixOf } from './logs-query';

describe('logsQueryString', () => {
  it('leaves out empty filters and keeps the cursor', () => {
    expect(logsQueryString({ status: '4xx', method: '', path: ' /posts ' }, 'abc')).toBe('status=4xx&path=%2Fposts&cursor=abc');
  });
  it('turns a window into a from time', () => {
    const now = Date.parse('2026-11-28T10:00:00Z');
    expect(logsQueryString({ since: '1h' }, null, now)).toBe('from=2026-11-28T09%3A00%3A00.000Z');
  });
});

describe('pathPrefixOf', () => {
  it('cuts a template at its first parameter', () => {
    expect(pathPrefixOf('/posts/{id}')).toBe('/posts/');
    expect(pathPrefixOf('/posts')).toBe('/posts');
  });
});

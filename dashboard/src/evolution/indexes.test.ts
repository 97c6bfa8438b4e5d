import { describe, expect, it } from 'vitest';
import type { IndexStatus } from '../api/types';
import { nth } from '../lib/nth';
import { describeBuild, indexSummary, isBuilding, visibleBuilds } from './indexes';

const building: IndexStatus = {
  state: 'building',
  total: 2,
  ready: 1,
  failed: 0,
  items: [
    { name: 'items_title_trgm', table: 'items', column: 'title', state: 'building', attempts: 1 },
    { name: 'items_score_sort', table: 'items', column: 'score', state: 'ready', attempts: 1 },
  ],
};

describe('index builds', () => {
  it('polls only while something is building', () => {
    expect(isBuilding(building)).toBe(true);
    expect(isBuilding({ ...building, state: 'ready' })).toBe(false);
    expect(isBuilding(undefined)).toBe(false);
  });

  it('sums the builds up', () => {
    expect(indexSummary(building)).toBe('Building 2 indexes in the background: 1 of 2 ready');
    expect(indexSummary({ ...building, state: 'failed', failed: 1 })).toBe('1 of 2 indexes could not be built');
    expect(indexSummary({ ...building, state: 'ready', ready: 2 })).toBe('2 indexes built');
    expect(indexSummary({ state: 'ready', total: 0, ready: 0, failed: 0, items: [] })).toBe('No indexes to build');
  });

  it('describes each build, with retries', () => {
    const first = nth(building.items, 0);
    expect(describeBuild({ ...first, state: 'pending', attempts: 0 })).toBe('waiting');
    expect(describeBuild({ ...first, state: 'pending', attempts: 1 })).toBe('waiting to retry');
    expect(describeBuild({ ...first, attempts: 2 })).toBe('building (attempt 2)');
    expect(describeBuild({ ...first, state: 'failed', attempts: 3, error: 'boom' })).toBe('failed after 3 attempts');
  });

  it('leaves out builds a newer version took over', () => {
    const status: IndexStatus = { ...building, items: [...building.items, { name: 'x', table: 'a', column: 'x', state: 'superseded', attempts: 1 }] };
    expect(visibleBuilds(status).map((b) => b.name)).toEqual(['items_title_trgm', 'items_score_sort']);
  });
});

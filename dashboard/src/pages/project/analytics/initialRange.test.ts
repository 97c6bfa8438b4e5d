import { describe, expect, it } from 'vitest';
import { smallestRangeShowing, type AnalyticsPoint } from './initialRange';

const now = Date.parse('2026-11-24T12:00:00Z');
const point = (minutesAgo: number, count: number): AnalyticsPoint => ({
  t: new Date(now - minutesAgo * 60_000).toISOString(),
  count_2xx: count,
  count_3xx: 0,
  count_4xx: 0,
  count_5xx: 0,
  p50_ms: null,
  p95_ms: null,
  p99_ms: null,
});

describe('the range Analytics opens on', () => {
  it('is the last hour for a project whose requests are all from the last hour', () => {
    expect(smallestRangeShowing([point(600, 0), point(20, 3), point(5, 1)], now)).toBe('1h');
  });

  it('grows to take in the oldest request', () => {
    expect(smallestRangeShowing([point(90, 1), point(5, 1)], now)).toBe('24h');
    expect(smallestRangeShowing([point(3 * 24 * 60, 1)], now)).toBe('7d');
    expect(smallestRangeShowing([point(20 * 24 * 60, 1)], now)).toBe('30d');
  });

  it('is 24 hours when there is nothing to show', () => {
    expect(smallestRangeShowing([point(5, 0)], now)).toBe('24h');
    expect(smallestRangeShowing([], now)).toBe('24h');
  });
});

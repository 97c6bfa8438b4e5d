import { describe, expect, it } from 'vitest';
import type { AnalyticsRange } from '../../../api/types';
import { smallestRangeShowing } from './initialRange';

const totals = (counts: Record<AnalyticsRange, number>) => {
  const asked: AnalyticsRange[] = [];
  const totalIn = (range: AnalyticsRange) => {
    asked.push(range);
    return Promise.resolve(counts[range]);
  };
  return { totalIn, asked };
};

describe('the range Analytics opens on', () => {
  it('is the last hour when every request is from the last hour', async () => {
    const { totalIn, asked } = totals({ '1h': 4, '24h': 4, '7d': 4, '30d': 4 });
    expect(await smallestRangeShowing(totalIn)).toBe('1h');
    expect(asked).toEqual(['30d', '1h']);
  });

  it('grows to take in the oldest request', async () => {
    expect(await smallestRangeShowing(totals({ '1h': 1, '24h': 4, '7d': 4, '30d': 4 }).totalIn)).toBe('24h');
    expect(await smallestRangeShowing(totals({ '1h': 0, '24h': 1, '7d': 4, '30d': 4 }).totalIn)).toBe('7d');
    expect(await smallestRangeShowing(totals({ '1h': 0, '24h': 0, '7d': 3, '30d': 4 }).totalIn)).toBe('30d');
  });

  it('is the last hour, where the first requests will show, when there is nothing yet', async () => {
    const { totalIn, asked } = totals({ '1h': 0, '24h': 0, '7d': 0, '30d': 0 });
    expect(await smallestRangeShowing(totalIn)).toBe('1h');
    expect(asked).toEqual(['30d']);
  });
});

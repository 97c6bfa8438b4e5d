// Which range the Analytics page opens on: the smallest that holds all of
// the project's requests of the last 30 days, so a new project's first
// requests make a readable chart instead of one spike at the right edge
// of "24 hours" (issue 20 item 9). Totals decide, not the series: a 30-day
// series has day-wide buckets that start before the first request.
import type { AnalyticsRange } from '../../../api/types';

/**
 * With no requests yet, the page opens on the last hour: the first ones
 * (recorded a few seconds after they are answered) appear there as the
 * page refreshes, at a scale that shows them.
 */
export const EMPTY_RANGE: AnalyticsRange = '1h';

const SMALLER: AnalyticsRange[] = ['1h', '24h', '7d'];

/** Asks for totals from the widest range down until a range holds them all. */
export async function smallestRangeShowing(totalIn: (range: AnalyticsRange) => Promise<number>): Promise<AnalyticsRange> {
  const all = await totalIn('30d');
  if (all === 0) return EMPTY_RANGE;
  for (const range of SMALLER) {
    // At least: requests may arrive between the two questions.
    if ((await totalIn(range)) >= all) return range;
  }
  return '30d';
}

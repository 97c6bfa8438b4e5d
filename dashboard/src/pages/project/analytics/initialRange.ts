// Which range the Analytics page opens on: the smallest that shows all of
// the project's requests of the last 30 days, so a new project's first
// requests are a readable chart instead of one spike at the right edge
// of "24 hours" (issue 20 item 9).
import type { Analytics, AnalyticsRange } from '../../../api/types';

export type AnalyticsPoint = Analytics['series'][number];

const RANGE_MS: [AnalyticsRange, number][] = [
  ['1h', 3_600_000],
  ['24h', 86_400_000],
  ['7d', 7 * 86_400_000],
  ['30d', 30 * 86_400_000],
];

/** With no requests at all, the page opens on this range. */
export const EMPTY_RANGE: AnalyticsRange = '24h';

export function smallestRangeShowing(series: AnalyticsPoint[], now: number): AnalyticsRange {
  const busy = series.filter((p) => p.count_2xx + p.count_3xx + p.count_4xx + p.count_5xx > 0);
  if (busy.length === 0) return EMPTY_RANGE;
  const oldest = Math.min(...busy.map((p) => new Date(p.t).getTime()));
  const age = now - oldest;
  return RANGE_MS.find(([, span]) => age <= span)?.[0] ?? '30d';
}

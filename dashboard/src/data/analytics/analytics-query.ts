import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { Analytics, AnalyticsRange } from '../../api/types';
import { analyticsKeys } from './keys';

const RANGES: Record<AnalyticsRange, { ms: number; interval: string }> = {
  '1h': { ms: 3_600_000, interval: '1m' },
  '24h': { ms: 86_400_000, interval: '1h' },
  '7d': { ms: 7 * 86_400_000, interval: '6h' },
  '30d': { ms: 30 * 86_400_000, interval: '1d' },
};

/** Query string for a range: `range` plus the contract's explicit from/to/interval. */
export function analyticsQueryString(range: AnalyticsRange, now: Date): string {
  const { ms, interval } = RANGES[range];
  const params = new URLSearchParams({
    range,
    from: new Date(now.getTime() - ms).toISOString(),
    to: now.toISOString(),
    interval,
  });
  return params.toString();
}

export function getAnalytics(projectId: string, range: AnalyticsRange, signal?: AbortSignal): Promise<Analytics> {
  const query = analyticsQueryString(range, new Date());
  return apiRequest<Analytics>(`/api/projects/${encodeURIComponent(projectId)}/analytics?${query}`, { signal });
}

export function useAnalyticsQuery(projectId: string, range: AnalyticsRange) {
  return useQuery({
    queryKey: analyticsKeys.range(projectId, range),
    queryFn: ({ signal }) => getAnalytics(projectId, range, signal),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
    retry: false,
  });
}

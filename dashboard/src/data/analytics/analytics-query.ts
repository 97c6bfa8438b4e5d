import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { Analytics, AnalyticsRange } from '../../api/types';
import { analyticsKeys } from './keys';

/** The query for a named range; the server picks the interval (CONTRACT 7). */
export function analyticsQueryString(range: AnalyticsRange): string {
  return new URLSearchParams({ range }).toString();
}

export function getAnalytics(projectId: string, range: AnalyticsRange, signal?: AbortSignal): Promise<Analytics> {
  const query = analyticsQueryString(range);
  return apiRequest<Analytics>(`/api/projects/${encodeURIComponent(projectId)}/analytics?${query}`, { signal });
}

export function useAnalyticsQuery(projectId: string, range: AnalyticsRange, enabled = true) {
  return useQuery({
    enabled,
    queryKey: analyticsKeys.range(projectId, range),
    queryFn: ({ signal }) => getAnalytics(projectId, range, signal),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
    retry: false,
  });
}

import type { AnalyticsRange } from '../../api/types';

export const analyticsKeys = {
  all: (projectId: string) => ['analytics', projectId] as const,
  range: (projectId: string, range: AnalyticsRange) => [...analyticsKeys.all(projectId), range] as const,
};

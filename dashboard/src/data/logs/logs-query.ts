import { useInfiniteQuery } from '@tanstack/react-query';
import { apiEnvelope } from '../../api/client';
import type { LogEntry } from '../../api/types';

/** One generated-API request as GET /api/projects/{id}/logs answers it (platform.yaml). */
export type { LogEntry };

export interface LogsPage {
  entries: LogEntry[];
  nextCursor: string | null;
  retentionHours: number;
}

/** The Logs page's filters, as they stand in its URL and in the API's query string. */
export interface LogFilters {
  status?: string;
  method?: string;
  path?: string;
  credential?: string;
  request_id?: string;
  /** A window back from now: 15m, 1h, 24h; empty: everything kept. */
  since?: string;
}

const SINCE_MS: Record<string, number> = { '15m': 15 * 60_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 };

/** The API's query string for filters and a cursor; empty values are left out. */
export function logsQueryString(filters: LogFilters, cursor: string | null, now: number = Date.now()): string {
  const q = new URLSearchParams();
  for (const key of ['status', 'method', 'path', 'credential', 'request_id'] as const) {
    const v = filters[key]?.trim();
    if (v) q.set(key, v);
  }
  const back = filters.since ? SINCE_MS[filters.since] : undefined;
  if (back) q.set('from', new Date(now - back).toISOString());
  if (cursor) q.set('cursor', cursor);
  return q.toString();
}

export async function getLogs(projectId: string, filters: LogFilters, cursor: string | null, signal?: AbortSignal): Promise<LogsPage> {
  const query = logsQueryString(filters, cursor);
  const env = await apiEnvelope<LogEntry[]>(`/api/projects/${encodeURIComponent(projectId)}/logs${query ? `?${query}` : ''}`, { signal });
  const meta = env.meta ?? {};
  return {
    entries: env.data ?? [],
    nextCursor: typeof meta.next_cursor === 'string' ? meta.next_cursor : null,
    retentionHours: typeof meta.retention_hours === 'number' ? meta.retention_hours : 0,
  };
}

export const logsKeys = {
  all: (projectId: string) => ['logs', projectId] as const,
  filtered: (projectId: string, filters: LogFilters) => [...logsKeys.all(projectId), filters] as const,
};

/** Pages of the log, newest first; tail refetches them every two seconds. */
export function useLogsQuery(projectId: string, filters: LogFilters, tail: boolean) {
  return useInfiniteQuery({
    queryKey: logsKeys.filtered(projectId, filters),
    queryFn: ({ pageParam, signal }) => getLogs(projectId, filters, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: tail ? 2_000 : false,
    retry: false,
  });
}

/** The path prefix that finds an endpoint's requests: its template up to the first parameter ("/posts/{id}" → "/posts/"). */
export function pathPrefixOf(template: string): string {
  const cut = template.indexOf('{');
  return cut < 0 ? template : template.slice(0, cut);
}

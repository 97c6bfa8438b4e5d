import { useQueries } from '@tanstack/react-query';
import { getSessionToken } from '../../api/session';
import type { RowCount } from '../../builder/existingRows';
import { listRecords } from './records-query';
import { recordKeys } from './keys';

/**
 * How many rows each named table of the published API holds, read with the
 * owner's dashboard session (never counted against the plan): one id per
 * table, the count from the list's meta (exact up to 10,000 rows).
 */
export function useRowCounts(projectId: string, tables: string[]): Record<string, RowCount | undefined> {
  const session = getSessionToken() ?? undefined;
  const results = useQueries({
    queries: tables.map((table) => ({
      queryKey: [...recordKeys.table(projectId, table), 'row-count'] as const,
      queryFn: async (): Promise<RowCount> => {
        const page = await listRecords(projectId, table, [['limit', '1'], ['fields', 'id']], session);
        return { total: page.meta.total ?? page.rows.length, estimated: Boolean(page.meta.total_estimated) };
      },
      enabled: Boolean(session),
      staleTime: 30_000,
      retry: false,
    })),
  });
  const counts: Record<string, RowCount | undefined> = {};
  tables.forEach((table, i) => {
    counts[table] = results[i]?.data;
  });
  return counts;
}

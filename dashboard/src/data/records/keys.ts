import type { QueryPairs } from '../../api/generated';

export const recordKeys = {
  all: (projectId: string) => ['records', projectId] as const,
  table: (projectId: string, table: string) => [...recordKeys.all(projectId), table] as const,
  list: (projectId: string, table: string, query: QueryPairs, credential: string | undefined) =>
    [...recordKeys.table(projectId, table), 'list', query, credential ?? ''] as const,
};

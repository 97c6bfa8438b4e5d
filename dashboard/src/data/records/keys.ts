import type { QueryPairs } from '../../api/generated';

export const recordKeys = {
  all: (projectId: string) => ['records', projectId] as const,
  table: (projectId: string, table: string) => [...recordKeys.all(projectId), table] as const,
  list: (projectId: string, table: string, query: QueryPairs, credential: string | undefined) =>
    [...recordKeys.table(projectId, table), 'list', query, credential ?? ''] as const,
  /** A record's file: apart from the lists, so refreshing records does not fetch files again (a stored name never changes content). */
  file: (projectId: string, url: string, credential: string) => ['record-files', projectId, url, credential] as const,
};

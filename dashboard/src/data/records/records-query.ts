import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { sendGenerated, unwrapGenerated, type QueryPairs } from '../../api/generated';
import { recordKeys } from './keys';

export type RecordRow = Record<string, unknown> & { id: string | number };

export interface ListMeta {
  page?: number;
  limit?: number;
  offset?: number;
  total?: number;
  total_pages?: number;
  total_estimated?: boolean;
}

export interface RecordPage {
  rows: RecordRow[];
  meta: ListMeta;
}

export async function listRecords(projectId: string, table: string, query: QueryPairs, credential?: string): Promise<RecordPage> {
  const response = await sendGenerated(projectId, { method: 'GET', path: `/${table}`, query, credential });
  const { data, meta } = unwrapGenerated<RecordRow[]>(response);
  return { rows: data ?? [], meta: (meta ?? {}) as ListMeta };
}

export function useRecordsQuery(projectId: string, table: string | undefined, query: QueryPairs, credential: string | undefined) {
  return useQuery({
    queryKey: recordKeys.list(projectId, table ?? '', query, credential),
    queryFn: () => listRecords(projectId, table!, query, credential),
    enabled: Boolean(table && credential),
    placeholderData: keepPreviousData,
    retry: false,
  });
}

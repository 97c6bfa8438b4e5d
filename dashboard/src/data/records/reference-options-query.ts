import { useQuery } from '@tanstack/react-query';
import { sendGenerated, unwrapGenerated, type QueryPairs } from '../../api/generated';
import { recordKeys } from './keys';
import type { RecordRow } from './records-query';

export interface ReferenceTarget {
  table: string;
  /** Text-like columns of the referenced table, which `search` matches. */
  textColumns: string[];
  idIsInteger: boolean;
}

/** The list query of a picker: the term by `search`; a number also as the id (`id = 5 or title ~ '5'`). */
export function referenceOptionsQuery(target: ReferenceTarget, term: string): QueryPairs {
  const trimmed = term.trim();
  const query: QueryPairs = [['limit', '10'], ['count', 'none']];
  if (!trimmed) return query;
  if (target.idIsInteger && /^\d{1,18}$/.test(trimmed)) {
    const quoted = `'${trimmed}'`;
    query.push(['filter', [`id = ${trimmed}`, ...target.textColumns.map((c) => `"${c}" ~ ${quoted}`)].join(' or ')]);
  } else if (target.textColumns.length > 0) {
    query.push(['search', trimmed]);
  } else if (!target.idIsInteger) {
    query.push(['filter[id]', trimmed]);
  }
  return query;
}

/** Records of a referenced table for a foreign-key picker. */
export function useReferenceOptionsQuery(projectId: string, target: ReferenceTarget, term: string, credential: string | undefined) {
  const query = referenceOptionsQuery(target, term);
  return useQuery({
    queryKey: [...recordKeys.list(projectId, target.table, query, credential), 'picker'],
    queryFn: async () => {
      const response = await sendGenerated(projectId, { method: 'GET', path: `/${target.table}`, query, credential });
      return unwrapGenerated<RecordRow[]>(response).data ?? [];
    },
    enabled: Boolean(credential),
    retry: false,
  });
}

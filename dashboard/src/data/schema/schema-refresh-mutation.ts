import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiEnvelope } from '../../api/client';
import type { RefreshResult } from '../../api/types';
import { openapiKeys } from '../openapi/keys';
import { projectKeys } from '../projects/keys';
import { schemaKeys } from './keys';
import { schemaPath } from './paths';

export interface SchemaRefreshVariables {
  projectId: string;
  /** Adopt the database's changes (a new version without DDL, merged into the draft); otherwise only compare. */
  apply: boolean;
}

export interface RefreshAnswer {
  result: RefreshResult;
  message?: string;
}

/** POST /schema/refresh: re-reads the fronted database. It never changes that database. */
export async function refreshSchema({ projectId, apply }: SchemaRefreshVariables): Promise<RefreshAnswer> {
  const answer = await apiEnvelope<RefreshResult>(schemaPath(projectId, '/refresh'), { method: 'POST', body: apply ? { apply: true } : {} });
  const r = answer.data;
  return {
    message: answer.message,
    result: {
      changes: r?.changes ?? [],
      replaced: r?.replaced ?? [],
      unsupported: r?.unsupported ?? [],
      notes: r?.notes ?? [],
      applied: Boolean(r?.applied),
      version: r?.version ?? 0,
    },
  };
}

export function useSchemaRefreshMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: refreshSchema,
    onSuccess: ({ result }, { projectId }) => {
      if (!result.applied) return;
      // The draft and the published version both moved: drop what the
      // builder would otherwise load from the cache before refetching.
      queryClient.removeQueries({ queryKey: schemaKeys.all(projectId) });
      void queryClient.invalidateQueries({ queryKey: openapiKeys.all(projectId) });
      void queryClient.invalidateQueries({ queryKey: projectKeys.detail(projectId) });
    },
  });
}

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiEnvelope } from '../../api/client';
import type { DraftWithMeta, SchemaMeta } from '../../api/types';
import type { SchemaDocument } from '../../schema/document';
import { schemaKeys } from './keys';
import { schemaPath } from './paths';

export interface SchemaResetVariables {
  projectId: string;
  version: number;
}

/**
 * POST /schema/reset: the draft becomes a copy of a published version.
 * Nothing is generated; generating it is a migration like any other.
 */
export async function resetSchema({ projectId, version }: SchemaResetVariables): Promise<DraftWithMeta> {
  const answer = await apiEnvelope<SchemaDocument | null>(schemaPath(projectId, '/reset'), { method: 'POST', body: { version } });
  return { document: { tables: answer.data?.tables ?? [] }, meta: (answer.meta ?? {}) as SchemaMeta, message: answer.message };
}

export function useSchemaResetMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: resetSchema,
    onSuccess: (saved, { projectId }) => {
      queryClient.setQueryData(schemaKeys.draft(projectId), saved.document);
      void queryClient.invalidateQueries({ queryKey: schemaKeys.plan(projectId) });
    },
  });
}

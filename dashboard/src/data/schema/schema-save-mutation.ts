import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiEnvelope } from '../../api/client';
import type { SchemaMeta } from '../../api/types';
import type { SchemaDocument } from '../../schema/document';
import { schemaKeys } from './keys';
import { schemaPath } from './paths';

export interface SchemaSaveVariables {
  projectId: string;
  document: SchemaDocument;
}

/** Saves the draft; the answer's meta says whether it is valid and, if not, its problems. */
export async function saveSchema({ projectId, document }: SchemaSaveVariables): Promise<SchemaMeta | undefined> {
  const envelope = await apiEnvelope<unknown>(schemaPath(projectId), { method: 'PUT', body: document });
  return envelope.meta as SchemaMeta | undefined;
}

export function useSchemaSaveMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: saveSchema,
    onSuccess: (_data, { projectId, document }) => {
      queryClient.setQueryData(schemaKeys.draft(projectId), document);
      void queryClient.invalidateQueries({ queryKey: schemaKeys.plan(projectId) });
    },
  });
}

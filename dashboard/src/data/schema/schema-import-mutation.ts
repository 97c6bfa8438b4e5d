import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiEnvelope } from '../../api/client';
import type { DraftWithMeta, SchemaMeta } from '../../api/types';
import type { SchemaDocument } from '../../schema/document';
import { schemaKeys } from './keys';
import { schemaPath } from './paths';

export interface SchemaImportVariables {
  projectId: string;
  /** The uploaded file's document, sent as it is: the server refuses unknown keys. */
  document: SchemaDocument;
}

/** PUT /schema with an uploaded file: it becomes the draft, valid or not; meta says which problems it has. */
export async function importSchema({ projectId, document }: SchemaImportVariables): Promise<DraftWithMeta> {
  const answer = await apiEnvelope<SchemaDocument | null>(schemaPath(projectId), { method: 'PUT', body: document });
  return { document: { tables: answer.data?.tables ?? [] }, meta: (answer.meta ?? {}) as SchemaMeta, message: answer.message };
}

export function useSchemaImportMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: importSchema,
    onSuccess: (saved, { projectId }) => {
      queryClient.setQueryData(schemaKeys.draft(projectId), saved.document);
      void queryClient.invalidateQueries({ queryKey: schemaKeys.plan(projectId) });
    },
  });
}

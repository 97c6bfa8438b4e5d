import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { SchemaDocument } from '../../schema/document';
import { schemaKeys } from './keys';
import { schemaPath } from './paths';

export interface SchemaSaveVariables {
  projectId: string;
  document: SchemaDocument;
}

export function saveSchema({ projectId, document }: SchemaSaveVariables): Promise<unknown> {
  return apiRequest(schemaPath(projectId), { method: 'PUT', body: document });
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

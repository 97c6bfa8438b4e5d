import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { GenerateResult } from '../../api/types';
import { openapiKeys } from '../openapi/keys';
import { projectKeys } from '../projects/keys';
import { schemaKeys } from './keys';

export interface GenerateVariables {
  projectId: string;
  confirmDestructive: boolean;
}

export function generateApi({ projectId, confirmDestructive }: GenerateVariables): Promise<GenerateResult> {
  return apiRequest<GenerateResult>(`/api/projects/${encodeURIComponent(projectId)}/generate`, {
    method: 'POST',
    body: { confirm_destructive: confirmDestructive },
  });
}

export function useGenerateMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: generateApi,
    onSuccess: (_result, { projectId }) => {
      void queryClient.invalidateQueries({ queryKey: schemaKeys.all(projectId) });
      void queryClient.invalidateQueries({ queryKey: openapiKeys.all(projectId) });
      void queryClient.invalidateQueries({ queryKey: projectKeys.detail(projectId) });
    },
  });
}

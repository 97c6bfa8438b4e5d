import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import { forgetKey } from '../../lib/keyVault';
import { apiKeyKeys } from './keys';

export interface ApiKeyRevokeVariables {
  projectId: string;
  keyId: string;
}

export function revokeApiKey({ projectId, keyId }: ApiKeyRevokeVariables): Promise<unknown> {
  return apiRequest(`/api/projects/${encodeURIComponent(projectId)}/keys/${encodeURIComponent(keyId)}`, {
    method: 'DELETE',
  });
}

export function useApiKeyRevokeMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeApiKey,
    onSuccess: (_data, { projectId, keyId }) => {
      forgetKey(projectId, keyId);
      void queryClient.invalidateQueries({ queryKey: apiKeyKeys.list(projectId) });
    },
  });
}

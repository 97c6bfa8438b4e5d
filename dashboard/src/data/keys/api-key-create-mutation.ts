import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { CreatedApiKey, KeyScope } from '../../api/types';
import { rememberKey } from '../../lib/keyVault';
import { apiKeyKeys } from './keys';

export interface ApiKeyCreateVariables {
  projectId: string;
  name: string;
  scope: KeyScope;
}

export function createApiKey({ projectId, name, scope }: ApiKeyCreateVariables): Promise<CreatedApiKey> {
  return apiRequest<CreatedApiKey>(`/api/projects/${encodeURIComponent(projectId)}/keys`, {
    method: 'POST',
    body: { name, scope },
  });
}

/** Creates a key and keeps its secret in this browser: the server shows it only once. */
export function useApiKeyCreateMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createApiKey,
    onSuccess: (created, { projectId }) => {
      rememberKey(projectId, {
        id: created.id,
        name: created.name,
        scope: created.scope,
        prefix: created.prefix,
        secret: created.key,
      });
      void queryClient.invalidateQueries({ queryKey: apiKeyKeys.list(projectId) });
    },
  });
}

import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { ApiKey } from '../../api/types';
import { apiKeyKeys } from './keys';

export function getApiKeys(projectId: string, signal?: AbortSignal): Promise<ApiKey[]> {
  return apiRequest<ApiKey[]>(`/api/projects/${encodeURIComponent(projectId)}/keys`, { signal });
}

export function useApiKeysQuery(projectId: string) {
  return useQuery({ queryKey: apiKeyKeys.list(projectId), queryFn: ({ signal }) => getApiKeys(projectId, signal) });
}

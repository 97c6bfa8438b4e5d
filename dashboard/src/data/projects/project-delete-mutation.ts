import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import { forgetProjectKeys } from '../../lib/keyVault';
import { accountKeys } from '../account/keys';
import { projectKeys } from './keys';

export function deleteProject(projectId: string): Promise<unknown> {
  return apiRequest(`/api/projects/${encodeURIComponent(projectId)}`, { method: 'DELETE' });
}

export function useProjectDeleteMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteProject,
    onSuccess: (_data, projectId) => {
      forgetProjectKeys(projectId);
      queryClient.removeQueries({ queryKey: projectKeys.detail(projectId) });
      void queryClient.invalidateQueries({ queryKey: projectKeys.list() });
      void queryClient.invalidateQueries({ queryKey: accountKeys.all });
    },
  });
}

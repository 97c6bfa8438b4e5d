import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { Project } from '../../api/types';
import { projectKeys } from './keys';

export interface ProjectUpdateVariables {
  projectId: string;
  name: string;
}

export function updateProject({ projectId, name }: ProjectUpdateVariables): Promise<Project> {
  return apiRequest<Project>(`/api/projects/${encodeURIComponent(projectId)}`, { method: 'PATCH', body: { name } });
}

export function useProjectUpdateMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateProject,
    onSuccess: (project, { projectId }) => {
      queryClient.setQueryData(projectKeys.detail(projectId), project);
      void queryClient.invalidateQueries({ queryKey: projectKeys.list() });
    },
  });
}

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { ExternalConnection, Project } from '../../api/types';
import { accountKeys } from '../account/keys';
import { projectKeys } from './keys';

export interface ProjectCreateVariables {
  name: string;
  engine: string;
  connection?: ExternalConnection;
}

export function createProject(variables: ProjectCreateVariables): Promise<Project> {
  return apiRequest<Project>('/api/projects', { method: 'POST', body: variables });
}

export function useProjectCreateMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createProject,
    onSuccess: (project) => {
      queryClient.setQueryData(projectKeys.detail(project.id), project);
      void queryClient.invalidateQueries({ queryKey: projectKeys.list() });
      void queryClient.invalidateQueries({ queryKey: accountKeys.all });
    },
  });
}

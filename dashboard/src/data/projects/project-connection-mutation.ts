import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { ExternalConnection, Project } from '../../api/types';
import { openapiKeys } from '../openapi/keys';
import { projectKeys } from './keys';

export interface ProjectConnectionVariables {
  projectId: string;
  connection: ExternalConnection;
}

/**
 * PATCH /api/projects/{id} with a new connection for a project that fronts
 * an existing database: checked like on create, then stored sealed. The
 * schema document stays; "Refresh from database" shows what differs there.
 */
export function updateProjectConnection({ projectId, connection }: ProjectConnectionVariables): Promise<Project> {
  return apiRequest<Project>(`/api/projects/${encodeURIComponent(projectId)}`, { method: 'PATCH', body: { connection } });
}

export function useProjectConnectionMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateProjectConnection,
    onSuccess: (project, { projectId }) => {
      queryClient.setQueryData(projectKeys.detail(projectId), project);
      void queryClient.invalidateQueries({ queryKey: projectKeys.list() });
      void queryClient.invalidateQueries({ queryKey: openapiKeys.all(projectId) });
    },
  });
}

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { Project } from '../../api/types';
import { projectKeys } from './keys';

export interface ProjectCorsVariables {
  projectId: string;
  /** Exact origins (`https://app.example.com`), or `['*']` for any origin. */
  allowedOrigins: string[];
}

/** PATCH /api/projects/{id} with `cors.allowed_origins` (docs/api.md, "CORS"). */
export function updateProjectCors({ projectId, allowedOrigins }: ProjectCorsVariables): Promise<Project> {
  return apiRequest<Project>(`/api/projects/${encodeURIComponent(projectId)}`, {
    method: 'PATCH',
    body: { cors: { allowed_origins: allowedOrigins } },
  });
}

export function useProjectCorsMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateProjectCors,
    onSuccess: (project, { projectId }) => {
      queryClient.setQueryData(projectKeys.detail(projectId), project);
      void queryClient.invalidateQueries({ queryKey: projectKeys.list() });
    },
  });
}

import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { Project } from '../../api/types';
import { projectKeys } from './keys';

export function getProject(projectId: string, signal?: AbortSignal): Promise<Project> {
  return apiRequest<Project>(`/api/projects/${encodeURIComponent(projectId)}`, { signal });
}

export function useProjectQuery(projectId: string) {
  return useQuery({ queryKey: projectKeys.detail(projectId), queryFn: ({ signal }) => getProject(projectId, signal) });
}

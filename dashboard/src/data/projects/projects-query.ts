import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { Project } from '../../api/types';
import { projectKeys } from './keys';

export function getProjects(signal?: AbortSignal): Promise<Project[]> {
  return apiRequest<Project[]>('/api/projects', { signal });
}

export function useProjectsQuery() {
  return useQuery({ queryKey: projectKeys.list(), queryFn: ({ signal }) => getProjects(signal) });
}

import { useParams } from 'react-router';

export function useProjectId(): string {
  const { projectId } = useParams();
  if (!projectId) throw new Error('useProjectId outside a project route');
  return projectId;
}

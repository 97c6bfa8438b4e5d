import { useProjectQuery } from '../../data/projects/project-query';
import { atLeast, type Role } from '../../lib/roles';
import { useProjectId } from './useProjectId';

/** The caller's role in the current project (undefined while it loads). */
export function useProjectRole(): Role | undefined {
  return useProjectQuery(useProjectId()).data?.role;
}

/** Whether the caller's role in the current project includes need. */
export function useCan(need: Role): boolean {
  return atLeast(useProjectRole(), need);
}

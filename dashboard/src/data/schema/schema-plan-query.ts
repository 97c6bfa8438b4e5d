import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { ChangePlan } from '../../api/types';
import { normalizePlan } from '../../evolution/plan';
import { schemaKeys } from './keys';
import { schemaPath } from './paths';

export interface ChangePlanOptions {
  /**
   * Also run the prechecks against the existing rows (read-only, no locks)
   * and list what would block the generate under `violations`. Each check
   * scans its table, so it is asked for only where it is shown.
   */
  check?: boolean;
  /** Ask only when this holds (default true). */
  enabled?: boolean;
}

export async function getChangePlan(projectId: string, options: ChangePlanOptions = {}, signal?: AbortSignal): Promise<ChangePlan> {
  const plan = await apiRequest<Partial<ChangePlan>>(schemaPath(projectId, options.check ? '/plan?check=true' : '/plan'), { signal });
  return normalizePlan(plan);
}

export function useChangePlanQuery(projectId: string, options: ChangePlanOptions = {}) {
  return useQuery({
    queryKey: options.check ? schemaKeys.planChecked(projectId) : schemaKeys.plan(projectId),
    queryFn: ({ signal }) => getChangePlan(projectId, options, signal),
    enabled: options.enabled ?? true,
  });
}

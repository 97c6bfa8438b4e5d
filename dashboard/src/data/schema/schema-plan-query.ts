import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { ChangePlan } from '../../api/types';
import { schemaKeys } from './keys';
import { schemaPath } from './paths';

export async function getChangePlan(projectId: string, signal?: AbortSignal): Promise<ChangePlan> {
  const plan = await apiRequest<Partial<ChangePlan>>(schemaPath(projectId, '/plan'), { signal });
  return { changes: plan.changes ?? [], statements: plan.statements ?? [], destructive: Boolean(plan.destructive) };
}

export function useChangePlanQuery(projectId: string) {
  return useQuery({ queryKey: schemaKeys.plan(projectId), queryFn: ({ signal }) => getChangePlan(projectId, signal) });
}

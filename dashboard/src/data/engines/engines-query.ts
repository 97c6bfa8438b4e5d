import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { Engine } from '../../api/types';
import { engineKeys } from './keys';

export function getEngines(signal?: AbortSignal): Promise<Engine[]> {
  return apiRequest<Engine[]>('/api/engines', { signal });
}

export function useEnginesQuery() {
  return useQuery({ queryKey: engineKeys.list(), queryFn: ({ signal }) => getEngines(signal), staleTime: 5 * 60_000 });
}

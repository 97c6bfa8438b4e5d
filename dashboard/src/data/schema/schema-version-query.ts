import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { SchemaVersion } from '../../api/types';
import { indexPollMs, isBuilding } from '../../evolution/indexes';
import { schemaKeys } from './keys';
import { schemaPath } from './paths';

export function getSchemaVersion(projectId: string, version: number, signal?: AbortSignal): Promise<SchemaVersion> {
  return apiRequest<SchemaVersion>(schemaPath(projectId, `/versions/${version}`), { signal });
}

/** One published version; asked again every few seconds while its index builds are under way. */
export function useSchemaVersionQuery(projectId: string, version: number) {
  return useQuery({
    queryKey: schemaKeys.version(projectId, version),
    queryFn: ({ signal }) => getSchemaVersion(projectId, version, signal),
    refetchInterval: (query) => (isBuilding(query.state.data?.indexes) ? indexPollMs : false),
  });
}

import { useQuery } from '@tanstack/react-query';
import { apiRequest, isApiError } from '../../api/client';
import type { SchemaVersion } from '../../api/types';
import type { SchemaDocument } from '../../schema/document';
import { schemaKeys } from './keys';
import { schemaPath } from './paths';

export function getSchemaVersions(projectId: string, signal?: AbortSignal): Promise<SchemaVersion[]> {
  return apiRequest<SchemaVersion[]>(schemaPath(projectId, '/versions'), { signal });
}

export function useSchemaVersionsQuery(projectId: string) {
  return useQuery({ queryKey: schemaKeys.versions(projectId), queryFn: ({ signal }) => getSchemaVersions(projectId, signal) });
}

function documentOf(version: SchemaVersion | undefined): SchemaDocument | undefined {
  return version?.document;
}

/**
 * The published schema (the newest version's document), or null before the
 * first generate. The list may carry only metadata; then the version itself
 * is fetched.
 */
export async function getPublishedSchema(projectId: string, signal?: AbortSignal): Promise<SchemaDocument | null> {
  const versions = await getSchemaVersions(projectId, signal);
  const newest = versions[0];
  if (!newest) return null;
  const listed = documentOf(newest);
  if (listed) return listed;
  try {
    const one = await apiRequest<SchemaVersion>(schemaPath(projectId, `/versions/${newest.version}`), { signal });
    return documentOf(one) ?? null;
  } catch (error) {
    if (isApiError(error, 'NOT_FOUND')) return null;
    throw error;
  }
}

export function usePublishedSchemaQuery(projectId: string) {
  return useQuery({
    queryKey: schemaKeys.published(projectId),
    queryFn: ({ signal }) => getPublishedSchema(projectId, signal),
  });
}

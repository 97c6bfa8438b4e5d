import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { SchemaDocument } from '../../schema/document';
import { schemaKeys } from './keys';
import { schemaPath } from './paths';

export async function getDraftSchema(projectId: string, signal?: AbortSignal): Promise<SchemaDocument> {
  const doc = await apiRequest<SchemaDocument | null>(schemaPath(projectId), { signal });
  return { tables: doc?.tables ?? [] };
}

export function useDraftSchemaQuery(projectId: string) {
  return useQuery({ queryKey: schemaKeys.draft(projectId), queryFn: ({ signal }) => getDraftSchema(projectId, signal) });
}

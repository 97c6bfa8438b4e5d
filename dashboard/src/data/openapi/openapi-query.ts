import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../../api/client';
import { apiBasePath } from '../../api/generated';
import type { OpenApiDocument } from '../../console/openapi';
import { openapiKeys } from './keys';

export function openapiUrl(projectId: string): string {
  return `${apiBasePath(projectId)}/openapi.json`;
}

/** The project's OpenAPI document; a 404 means nothing is generated yet. */
export async function getOpenApiDocument(projectId: string, signal?: AbortSignal): Promise<OpenApiDocument> {
  const response = await fetch(openapiUrl(projectId), { signal, headers: { Accept: 'application/json' } });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok || !body || typeof body !== 'object' || !('paths' in body)) {
    const error = (body as { error?: { code: string; message: string } } | undefined)?.error;
    throw new ApiError(response.status, error ?? { code: response.status === 404 ? 'NOT_FOUND' : 'BAD_RESPONSE', message: 'No API description yet.' });
  }
  return body as OpenApiDocument;
}

export function useOpenApiQuery(projectId: string) {
  return useQuery({
    queryKey: openapiKeys.document(projectId),
    queryFn: ({ signal }) => getOpenApiDocument(projectId, signal),
    retry: false,
  });
}

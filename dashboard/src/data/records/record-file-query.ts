import { useQuery } from '@tanstack/react-query';
import { ApiError, type ErrorBody } from '../../api/client';
import { isApiFileUrl } from '../../grid/files';
import { recordKeys } from './keys';

/**
 * Fetches a record's file from the generated API with the credential that
 * reads the record: a download URL needs it like the record does, so an
 * <img src> or a plain link cannot load it. Only paths of this origin's
 * generated API are fetched, so the credential goes nowhere else.
 */
export async function fetchRecordFile(url: string, credential: string, signal?: AbortSignal): Promise<Blob> {
  if (!isApiFileUrl(url, window.location.origin)) {
    throw new ApiError(0, { code: 'BAD_RESPONSE', message: `The file's address ${url} is not one of this API's.` });
  }
  let response: Response;
  try {
    response = await fetch(url, { headers: { Authorization: `Bearer ${credential}` }, signal });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, { code: 'NETWORK_ERROR', message: 'The server could not be reached. Check your connection and try again.' });
  }
  if (!response.ok) {
    let body: ErrorBody | undefined;
    try {
      body = ((await response.json()) as { error?: ErrorBody }).error;
    } catch {
      body = undefined;
    }
    throw new ApiError(response.status, body?.code ? body : { code: response.status === 404 ? 'NOT_FOUND' : 'BAD_RESPONSE', message: `The file could not be read (${response.status}).` });
  }
  return response.blob();
}

/**
 * A record's file as a Blob, kept while shown: a stored file's name never
 * names other content, so it is fetched once per credential.
 */
export function useRecordFileQuery(projectId: string, url: string, credential: string, enabled = true) {
  return useQuery({
    queryKey: recordKeys.file(projectId, url, credential),
    queryFn: ({ signal }) => fetchRecordFile(url, credential, signal),
    enabled,
    staleTime: Infinity,
    retry: false,
  });
}

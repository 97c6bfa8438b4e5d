// Requests to a project's generated API (/v1/<project_id>), kept raw so the
// Test console can show status, headers, timing and the body as sent back.
import { ApiError, type ErrorBody } from './client';
import { parseExactJson } from '../lib/exactJson';

export type QueryPairs = [string, string][];

export interface GeneratedRequest {
  method: string;
  /** Path below /v1/<project_id>, starting with a slash: `/users/3`. */
  path: string;
  query?: QueryPairs;
  /** A JSON text (sent as is), multipart/form-data (FormData), or a value to encode as JSON. */
  body?: string | FormData | unknown;
  credential?: string;
  /** The answer may be bytes (a file download): one that is not JSON is kept as bytes, never decoded as text. */
  binary?: boolean;
}

export interface GeneratedResponse {
  status: number;
  statusText: string;
  ok: boolean;
  headers: [string, string][];
  text: string;
  json: unknown;
  timeMs: number;
  /** The answer's bytes, when the request asked for bytes and the answer is not JSON (text is then empty). */
  blob?: Blob;
}

export function apiBasePath(projectId: string): string {
  return `/v1/${encodeURIComponent(projectId)}`;
}

/** The relative URL of a request, with query pairs encoded but brackets kept readable. */
export function generatedUrl(projectId: string, path: string, query: QueryPairs = []): string {
  const search = query
    .filter(([name]) => name !== '')
    .map(([name, value]) => `${encodeQueryPart(name)}=${encodeQueryPart(value)}`)
    .join('&');
  return `${apiBasePath(projectId)}${path}${search ? `?${search}` : ''}`;
}

function encodeQueryPart(part: string): string {
  return encodeURIComponent(part).replace(/%5B/g, '[').replace(/%5D/g, ']').replace(/%2C/g, ',');
}

export async function sendGenerated(projectId: string, request: GeneratedRequest): Promise<GeneratedResponse> {
  const headers: Record<string, string> = { Accept: request.binary ? '*/*' : 'application/json' };
  if (request.credential) headers.Authorization = `Bearer ${request.credential}`;
  let body: string | FormData | undefined;
  if (request.body instanceof FormData) {
    // The browser writes the Content-Type with the parts' boundary.
    body = request.body;
  } else if (request.body !== undefined && request.body !== '') {
    headers['Content-Type'] = 'application/json';
    body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  }
  const started = performance.now();
  const response = await fetch(generatedUrl(projectId, request.path, request.query), {
    method: request.method.toUpperCase(),
    headers,
    body,
  });
  const contentType = response.headers.get('Content-Type') ?? '';
  const blob = request.binary && !/json/i.test(contentType) ? await response.blob() : undefined;
  const text = blob ? '' : await response.text();
  const timeMs = Math.round(performance.now() - started);
  let json: unknown;
  try {
    // Decimals keep every digit: a number a JS number cannot hold exactly
    // arrives as the string of its digits.
    json = text ? parseExactJson(text) : undefined;
  } catch {
    json = undefined;
  }
  return {
    status: response.status,
    statusText: response.statusText,
    ok: response.ok,
    headers: [...response.headers.entries()],
    text,
    json,
    timeMs,
    ...(blob ? { blob } : {}),
  };
}

/** The envelope's data and meta, or the envelope's error as an ApiError. */
export function unwrapGenerated<T>(response: GeneratedResponse): { data: T; meta?: Record<string, unknown>; message?: string } {
  const payload = response.json as { success?: boolean; data?: T; meta?: Record<string, unknown>; message?: string; error?: ErrorBody } | undefined;
  if (response.ok && payload && payload.success !== false) {
    return { data: payload.data as T, meta: payload.meta, message: payload.message };
  }
  if (payload?.error?.code) throw new ApiError(response.status, payload.error);
  throw new ApiError(response.status, {
    code: 'BAD_RESPONSE',
    message: `The API answered ${response.status} without the expected JSON body.`,
  });
}

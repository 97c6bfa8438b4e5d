// The platform API client: relative URLs (the dashboard shares the origin
// with /api), the bearer session token, and the envelope of CONTRACT 2
// unwrapped into data or an ApiError.
import { getSessionToken, setSessionToken } from './session';

export interface ErrorBody {
  code: string;
  message: string;
  details?: Record<string, string>;
  /** Extra facts beside details, e.g. `violations` of a refused generate or `problem` of a connection. */
  info?: Record<string, unknown>;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, string>;
  readonly info: Record<string, unknown>;

  constructor(status: number, body: ErrorBody) {
    super(body.message);
    this.name = 'ApiError';
    this.status = status;
    this.code = body.code;
    this.details = body.details ?? {};
    this.info = body.info && typeof body.info === 'object' ? body.info : {};
  }
}

export interface Envelope<T> {
  data: T;
  message?: string;
  meta?: Record<string, unknown>;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
  /** Leave out the session token (sign-up and log-in). */
  anonymous?: boolean;
}

export async function apiEnvelope<T>(path: string, options: RequestOptions = {}): Promise<Envelope<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = options.anonymous ? null : getSessionToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';

  let response: Response;
  try {
    response = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, { code: 'NETWORK_ERROR', message: 'The server could not be reached. Check your connection and try again.' });
  }

  const payload = await readJson(response);
  if (response.ok && payload && typeof payload === 'object' && (payload as { success?: unknown }).success !== false) {
    const ok = payload as { data: T; message?: string; meta?: Record<string, unknown> };
    return { data: ok.data, message: ok.message, meta: ok.meta };
  }
  if (response.ok && payload === undefined && response.status === 204) return { data: null as T };

  const error = errorFrom(response.status, payload);
  if (error.status === 401 && token) setSessionToken(null);
  throw error;
}

export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return (await apiEnvelope<T>(path, options)).data;
}

export interface DownloadedFile {
  blob: Blob;
  filename: string;
}

/**
 * Fetches a file the server sends without an envelope (a download with
 * Content-Disposition), with the session token; an error still comes back
 * in the envelope and is thrown as an ApiError.
 */
export async function apiDownload(path: string, fallbackName: string, signal?: AbortSignal): Promise<DownloadedFile> {
  const headers: Record<string, string> = {};
  const token = getSessionToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(path, { headers, signal });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, { code: 'NETWORK_ERROR', message: 'The server could not be reached. Check your connection and try again.' });
  }
  if (!response.ok) {
    const error = errorFrom(response.status, await readJson(response));
    if (error.status === 401 && token) setSessionToken(null);
    throw error;
  }
  return { blob: await response.blob(), filename: filenameFromDisposition(response.headers.get('Content-Disposition'), fallbackName) };
}

/** The file name a Content-Disposition header gives, or the fallback; never a path. */
export function filenameFromDisposition(header: string | null, fallback: string): string {
  if (!header) return fallback;
  let name: string | undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (extended?.[1]) {
    try {
      name = decodeURIComponent(extended[1].trim());
    } catch {
      name = undefined;
    }
  }
  if (!name) {
    const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/.exec(header);
    const bare = /filename\s*=\s*([^;"\s]+)/.exec(header);
    name = quoted?.[1] !== undefined ? quoted[1].replace(/\\(.)/g, '$1') : bare?.[1];
  }
  const base = name?.split(/[\\/]/).pop()?.trim();
  return base && base !== '.' && base !== '..' ? base : fallback;
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorFrom(status: number, payload: unknown): ApiError {
  const body = (payload as { error?: ErrorBody } | undefined)?.error;
  if (body && typeof body.code === 'string') return new ApiError(status, body);
  return new ApiError(status, {
    code: status === 404 ? 'NOT_FOUND' : 'BAD_RESPONSE',
    message: `The server answered ${status} without the expected JSON body.`,
  });
}

/** The error in words, with each field's problem, for notifications and alerts. */
export function describeError(error: unknown): { title: string; lines: string[] } {
  if (error instanceof ApiError) {
    const lines = Object.entries(error.details).map(([field, message]) => `${field}: ${message}`);
    return { title: error.message || error.code, lines };
  }
  return { title: error instanceof Error ? error.message : String(error), lines: [] };
}

export function isApiError(error: unknown, code?: string): error is ApiError {
  return error instanceof ApiError && (code === undefined || error.code === code);
}

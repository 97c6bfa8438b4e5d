// The platform API client: relative URLs (the dashboard shares the origin
// with /api), the bearer session token, and the envelope of CONTRACT 2
// unwrapped into data or an ApiError.
import { getSessionToken, setSessionToken } from './session';

export interface ErrorBody {
  code: string;
  message: string;
  details?: Record<string, string>;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, string>;

  constructor(status: number, body: ErrorBody) {
    super(body.message);
    this.name = 'ApiError';
    this.status = status;
    this.code = body.code;
    this.details = body.details ?? {};
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

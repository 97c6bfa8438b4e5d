import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, apiEnvelope, apiRequest, describeError } from './client';
import { getSessionToken, setSessionToken } from './session';

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (k) => items.get(k) ?? null,
    key: (i) => [...items.keys()][i] ?? null,
    removeItem: (k) => void items.delete(k),
    setItem: (k, v) => void items.set(k, String(v)),
  };
}

function answer(status: number, body: unknown) {
  return vi.fn(async () => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status }));
}

describe('the platform API client', () => {
  beforeEach(() => {
    vi.stubGlobal('localStorage', memoryStorage());
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('sends the session token and JSON body, and unwraps data and meta', async () => {
    setSessionToken('tok');
    const fetch = answer(200, { success: true, data: { id: 1 }, meta: { total: 1 } });
    vi.stubGlobal('fetch', fetch);
    const envelope = await apiEnvelope<{ id: number }>('/api/projects', { method: 'POST', body: { name: 'x' } });
    expect(envelope).toEqual({ data: { id: 1 }, meta: { total: 1 }, message: undefined });
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/projects');
    expect(init.headers).toMatchObject({ Authorization: 'Bearer tok', 'Content-Type': 'application/json' });
    expect(init.body).toBe('{"name":"x"}');
  });

  it('turns the error envelope into an ApiError with its details', async () => {
    vi.stubGlobal('fetch', answer(400, { success: false, error: { code: 'VALIDATION_ERROR', message: 'Validation failed', details: { email: 'invalid e-mail format' } } }));
    const error = await apiRequest('/api/auth/signup', { method: 'POST', body: {}, anonymous: true }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: { email: 'invalid e-mail format' } });
    expect(describeError(error)).toEqual({ title: 'Validation failed', lines: ['email: invalid e-mail format'] });
  });

  it('ends the session on a 401 to a signed-in request', async () => {
    setSessionToken('expired');
    vi.stubGlobal('fetch', answer(401, { success: false, error: { code: 'UNAUTHORIZED', message: 'Session expired' } }));
    await expect(apiRequest('/api/account')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(getSessionToken()).toBeNull();
  });

  it('names a response that is not the envelope', async () => {
    vi.stubGlobal('fetch', answer(502, '<html>Bad gateway</html>'));
    await expect(apiRequest('/api/account')).rejects.toMatchObject({ status: 502, code: 'BAD_RESPONSE' });
  });

  it('names an unreachable server', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))));
    await expect(apiRequest('/api/account')).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
  });
});

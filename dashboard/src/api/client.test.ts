import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, apiDownload, apiEnvelope, apiRequest, describeError, filenameFromDisposition } from './client';
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

  it('keeps error.info beside the details', async () => {
    const info = { violations: [{ table: 'people', column: 'name', rule: 'every row has a value', count: 7, examples: ['2'] }] };
    vi.stubGlobal('fetch', answer(409, { success: false, error: { code: 'CONFLICT', message: 'Existing rows do not fit', details: { 'people.name': '7 rows' }, info } }));
    await expect(apiRequest('/api/projects/p/generate', { method: 'POST', body: {} })).rejects.toMatchObject({ code: 'CONFLICT', info });
    vi.stubGlobal('fetch', answer(400, { success: false, error: { code: 'VALIDATION_ERROR', message: 'x' } }));
    await expect(apiRequest('/api/x')).rejects.toMatchObject({ info: {} });
  });
});

describe('downloads', () => {
  beforeEach(() => {
    vi.stubGlobal('localStorage', memoryStorage());
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('fetches the file with the session and takes its name from Content-Disposition', async () => {
    setSessionToken('tok');
    const fetch = vi.fn(
      async () =>
        new Response('{"tables": []}\n', {
          status: 200,
          headers: { 'Content-Type': 'application/json', 'Content-Disposition': 'attachment; filename="abc-schema-v2.json"' },
        }),
    );
    vi.stubGlobal('fetch', fetch);
    const file = await apiDownload('/api/projects/abc/schema/export?version=2', 'fallback.json');
    expect(file.filename).toBe('abc-schema-v2.json');
    expect(await file.blob.text()).toBe('{"tables": []}\n');
    const [, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(init.headers).toMatchObject({ Authorization: 'Bearer tok' });
  });

  it('throws the error envelope of a refused download', async () => {
    vi.stubGlobal('fetch', answer(404, { success: false, error: { code: 'NOT_FOUND', message: 'Version 9 not found' } }));
    await expect(apiDownload('/api/projects/abc/schema/export?version=9', 'x.json')).rejects.toMatchObject({ status: 404, message: 'Version 9 not found' });
  });

  it('reads file names from every form of the header, never a path', () => {
    expect(filenameFromDisposition('attachment; filename="a b.json"', 'f')).toBe('a b.json');
    expect(filenameFromDisposition('attachment; filename=plain.json', 'f')).toBe('plain.json');
    expect(filenameFromDisposition("attachment; filename=\"ascii.json\"; filename*=UTF-8''sch%C3%A9ma.json", 'f')).toBe('schéma.json');
    expect(filenameFromDisposition('attachment; filename="../../etc/passwd"', 'f')).toBe('passwd');
    expect(filenameFromDisposition('attachment; filename=".."', 'f')).toBe('f');
    expect(filenameFromDisposition('attachment', 'f')).toBe('f');
    expect(filenameFromDisposition(null, 'f')).toBe('f');
  });
});

import { describe, expect, it } from 'vitest';
import { isStreamOperation, realtimeUrl } from './realtime';

describe('realtime stream URLs', () => {
  it('sends the credential as access_token, replacing one typed in the query', () => {
    const url = realtimeUrl('p1', [['tables', 'posts,comments'], ['access_token', 'typed'], ["where[posts]", "status = 'live'"]], 'ts_key');
    expect(url).toBe("/v1/p1/realtime?tables=posts,comments&where[posts]=status%20%3D%20'live'&access_token=ts_key");
  });

  it('keeps a typed access_token when no credential is chosen', () => {
    expect(realtimeUrl('p1', [['tables', 'posts'], ['access_token', 'typed']])).toBe('/v1/p1/realtime?tables=posts&access_token=typed');
  });

  it('knows the stream operation by method and path', () => {
    expect(isStreamOperation({ method: 'GET', path: '/realtime' })).toBe(true);
    expect(isStreamOperation({ method: 'GET', path: '/realtime_logs' })).toBe(false);
    expect(isStreamOperation({ method: 'POST', path: '/realtime' })).toBe(false);
  });
});

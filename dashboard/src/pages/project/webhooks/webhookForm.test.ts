import { describe, expect, it } from 'vitest';
import { type Delivery, type Webhook } from '../../../data/webhooks/webhooks';
import { awaitingText, deliveryOutcome, emptyForm, fieldErrors, formOf, parseWhere, replayBodyOf, specOf, tableLabel } from './webhookForm';

describe('parseWhere', () => {
  it('takes nothing as no condition', () => {
    expect(parseWhere('  ')).toEqual({ where: {} });
  });
  it('reads an object of table to condition', () => {
    expect(parseWhere('{"posts": "status=published"}')).toEqual({ where: { posts: 'status=published' } });
  });
  it('refuses text that is not JSON, an array, and a condition that is not a string', () => {
    expect(parseWhere('{posts')).toHaveProperty('error', expect.stringContaining('Not JSON'));
    expect(parseWhere('["posts"]')).toHaveProperty('error', expect.stringContaining('object'));
    expect(parseWhere('{"posts": 3}')).toHaveProperty('error', expect.stringContaining('"posts"'));
  });
});

describe('specOf', () => {
  it('builds the body with events in the server order and the URL trimmed', () => {
    const got = specOf({ url: ' https://example.com/hook ', tables: ['notes'], events: ['delete', 'insert'], where: '{"notes":"stars=gt.2"}', enabled: false });
    expect(got).toEqual({
      spec: { url: 'https://example.com/hook', tables: ['notes'], events: ['insert', 'delete'], where: { notes: 'stars=gt.2' }, enabled: false },
    });
  });
  it('names every missing field at once, keyed as the server keys them', () => {
    const got = specOf({ ...emptyForm, events: [], where: 'nope' });
    expect(got).toHaveProperty('errors');
    expect(Object.keys((got as { errors: Record<string, string> }).errors).sort()).toEqual(['events', 'tables', 'url', 'where']);
  });
});

describe('formOf', () => {
  it('turns a webhook back into the form, with its condition as JSON', () => {
    const hook: Webhook = {
      id: 'wh_1',
      project_id: 'p',
      url: 'https://x.test/',
      tables: ['a'],
      awaiting_generate: [],
      events: ['update', 'insert'],
      where: { a: 'n=eq.1' },
      enabled: true,
      disabled_reason: '',
      cursor: 0,
      attempts: 0,
      next_attempt_at: '2026-01-01T00:00:00Z',
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    };
    const form = formOf(hook);
    expect(form.events).toEqual(['insert', 'update']);
    expect(JSON.parse(form.where)).toEqual({ a: 'n=eq.1' });
    expect(formOf({ ...hook, where: {} }).where).toBe('');
  });
});

describe('fieldErrors', () => {
  it('folds where.<table> into the where field', () => {
    expect(fieldErrors({ url: 'bad', 'where.a': 'unknown column x', 'where.b': 'bad operator' })).toEqual({
      url: 'bad',
      where: 'a: unknown column x; b: bad operator',
    });
  });
});

describe('deliveryOutcome', () => {
  const d = (status: number) => ({ status }) as Delivery;
  it('tells a 2xx from an error status and from no answer', () => {
    expect(deliveryOutcome(d(204))).toEqual({ label: '204 delivered', ok: true });
    expect(deliveryOutcome(d(500))).toEqual({ label: '500 refused', ok: false });
    expect(deliveryOutcome(d(0))).toEqual({ label: 'no answer', ok: false });
  });
});

describe('replayBodyOf', () => {
  it('replays from a change id', () => {
    expect(replayBodyOf('change', 42, '')).toEqual({ from: { from_change_id: 42 } });
  });
  it('refuses a missing or fractional change id, at the field the server names', () => {
    expect(replayBodyOf('change', '', '')).toEqual({ errors: { from_change_id: expect.any(String) } });
    expect(replayBodyOf('change', 1.5, '')).toEqual({ errors: { from_change_id: expect.any(String) } });
  });
  it('sends a local time as the same instant in UTC', () => {
    const local = '2026-11-28T17:30';
    const body = replayBodyOf('time', '', local);
    expect(body).toEqual({ from: { since: new Date(local).toISOString() } });
    if ('from' in body && 'since' in body.from) expect(body.from.since).toMatch(/^2026-11-2[789]T\d\d:30:00\.000Z$/);
  });
  it('refuses an empty or unreadable time', () => {
    expect(replayBodyOf('time', 3, '')).toEqual({ errors: { since: expect.any(String) } });
    expect(replayBodyOf('time', 3, 'yesterday')).toEqual({ errors: { since: expect.any(String) } });
  });
});

describe('tableLabel', () => {
  it('offers a table without capture as one the next generate switches on, and marks a fronted one', () => {
    expect(tableLabel({ name: 'posts', realtime: true })).toBe('posts');
    expect(tableLabel({ name: 'notes' })).toBe('notes (capture starts at the next generate)');
    expect(tableLabel({ name: 'legacy', external: { primary_key: 'id' } })).toBe('legacy (fronted: cannot capture its changes)');
  });
});

describe('awaitingText', () => {
  it('names the tables waiting for the next generate, and nothing when none waits', () => {
    expect(awaitingText({ awaiting_generate: [] })).toBeNull();
    expect(awaitingText({ awaiting_generate: ['notes'] })).toContain('switches realtime capture on for notes, and its changes are delivered');
    expect(awaitingText({ awaiting_generate: ['notes', 'tags'] })).toContain('notes, tags, and their changes');
  });
});

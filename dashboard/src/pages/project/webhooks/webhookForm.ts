// Turns the Webhooks page's form into the body the server takes
// (docs/webhooks.md), and a delivery attempt into the words the log shows.
import type { Delivery, ReplayFrom, Webhook, WebhookSpec } from '../../../data/webhooks/webhooks';

export const EVENTS = ['insert', 'update', 'delete'] as const;
export type WebhookEvent = (typeof EVENTS)[number];

export interface WebhookForm {
  url: string;
  tables: string[];
  events: WebhookEvent[];
  /** The `where` object as JSON text: `{"posts": "status=published"}`; empty for none. */
  where: string;
  enabled: boolean;
}

export const emptyForm: WebhookForm = { url: '', tables: [], events: [...EVENTS], where: '', enabled: true };

export function formOf(hook: Webhook): WebhookForm {
  const hasWhere = hook.where && Object.keys(hook.where).length > 0;
  return {
    url: hook.url,
    tables: [...hook.tables],
    events: EVENTS.filter((e) => hook.events.includes(e)),
    where: hasWhere ? JSON.stringify(hook.where, null, 2) : '',
    enabled: hook.enabled,
  };
}

/**
 * Reads the where text: an object of table name to a condition in the
 * realtime filter grammar. Returns the object, or an error in words.
 */
export function parseWhere(text: string): { where: Record<string, string> } | { error: string } {
  if (!text.trim()) return { where: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'Not JSON: write an object such as {"posts": "status=published"}' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { error: 'Must be an object of table name to condition, such as {"posts": "status=published"}' };
  }
  const where: Record<string, string> = {};
  for (const [table, condition] of Object.entries(value)) {
    if (typeof condition !== 'string') return { error: `The condition for "${table}" must be a string, such as "status=published"` };
    where[table] = condition;
  }
  return { where };
}

/** The request body of a create or an edit, or the problems keyed as the server keys them. */
export function specOf(form: WebhookForm): { spec: WebhookSpec } | { errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const url = form.url.trim();
  if (!url) errors.url = 'Give the URL that receives the deliveries';
  if (form.tables.length === 0) errors.tables = 'Choose at least one table';
  if (form.events.length === 0) errors.events = 'Choose at least one event';
  const where = parseWhere(form.where);
  if ('error' in where) errors.where = where.error;
  if (Object.keys(errors).length > 0 || 'error' in where) return { errors };
  return {
    spec: {
      url,
      tables: [...form.tables],
      events: EVENTS.filter((e) => form.events.includes(e)),
      where: where.where,
      enabled: form.enabled,
    },
  };
}

/**
 * The server names a condition's problem `where.<table>`; the form has one
 * where field, so those fold into it (each line naming its table).
 */
export function fieldErrors(details: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, message] of Object.entries(details)) {
    if (key.startsWith('where.')) {
      const line = `${key.slice('where.'.length)}: ${message}`;
      out.where = out.where ? `${out.where}; ${line}` : line;
    } else {
      out[key] = message;
    }
  }
  return out;
}

/** A delivery attempt's outcome in a few words. */
export function deliveryOutcome(d: Delivery): { label: string; ok: boolean } {
  if (d.status >= 200 && d.status < 300) return { label: `${d.status} delivered`, ok: true };
  if (d.status === 0) return { label: 'no answer', ok: false };
  return { label: `${d.status} refused`, ok: false };
}

/** Where a replay starts: a change id, or a time the browser's clock reads. */
export type ReplayMode = 'change' | 'time';

/**
 * The replay request's body: from a change id, or from a local date and
 * time (a datetime-local input's value, read in the browser's time zone)
 * sent as RFC 3339 in UTC. Or the problem in words, keyed as the server
 * keys it.
 */
export function replayBodyOf(mode: ReplayMode, changeId: string | number, localTime: string): { from: ReplayFrom } | { errors: Record<string, string> } {
  if (mode === 'change') {
    if (typeof changeId !== 'number' || !Number.isInteger(changeId) || changeId < 1) {
      return { errors: { from_change_id: 'Give a change id (a whole number from 1)' } };
    }
    return { from: { from_change_id: changeId } };
  }
  const at = localTime ? new Date(localTime) : null;
  if (!at || Number.isNaN(at.getTime())) return { errors: { since: 'Give the date and time to deliver again from' } };
  return { from: { since: at.toISOString() } };
}

/** A published table as the form's table choice shows it. */
export interface TableChoice {
  name: string;
  realtime?: boolean;
  external?: unknown;
}

/**
 * The table choice's label: a table without realtime capture may be
 * chosen, and the next generate switches capture on for it; a fronted
 * database's table cannot capture, and the server refuses it.
 */
export function tableLabel(t: TableChoice): string {
  if (t.realtime) return t.name;
  if (t.external) return `${t.name} (fronted: cannot capture its changes)`;
  return `${t.name} (capture starts at the next generate)`;
}

/** What a webhook waits for, in words; null when every table captures. */
export function awaitingText(hook: Pick<Webhook, 'awaiting_generate'>): string | null {
  const tables = hook.awaiting_generate ?? [];
  if (tables.length === 0) return null;
  const they = tables.length === 1 ? 'its changes are' : 'their changes are';
  return `Waiting for the next generate: it switches realtime capture on for ${tables.join(', ')}, and ${they} delivered from then on.`;
}

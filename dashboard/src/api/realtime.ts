// The realtime stream of a project's generated API (docs/realtime.md), opened
// with the browser's EventSource. EventSource cannot send headers, so the
// credential travels in the URL, which the server strips before anything
// logs it: an API key as ?access_token=, the owner's dashboard as
// ?ticket=, a one-minute stream ticket (the 7-day session never goes into
// a URL; the server refuses it there).
import { generatedUrl, type QueryPairs } from './generated';
import { parseExactJson } from '../lib/exactJson';
import type { ErrorBody } from './client';

/** The event names the server sends; `error` is also EventSource's own failure event. */
export const STREAM_EVENTS = ['create', 'update', 'delete', 'reset', 'reconnect', 'error'] as const;
export type StreamEventName = (typeof STREAM_EVENTS)[number];

export interface StreamEvent {
  /** The project's change sequence number ('' when the event has none). */
  id: string;
  event: StreamEventName;
  /** The decoded `data:` line (decimals keep every digit), or its text when it is not JSON. */
  data: unknown;
  receivedAt: Date;
}

/**
 * connecting: before the first open; live: open; reconnecting: the connection
 * dropped and EventSource retries (resuming with Last-Event-ID); stopped: the
 * server refused or ended the stream, or it was closed.
 */
export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'stopped';

export interface StreamHandlers {
  onEvent?: (event: StreamEvent) => void;
  onState?: (state: StreamState) => void;
  /** Why the stream stopped: a server `error` event's envelope, or the refusal of the opening request. */
  onStopped?: (error: ErrorBody) => void;
}

/** The prefix of a stream ticket (POST /api/projects/{id}/stream-tickets). */
const TICKET_PREFIX = 'tsk_';

/** The prefix of a dashboard session, which must not be put in a URL. */
const SESSION_PREFIX = 'tsp_';

/** Whether a credential is the dashboard session: a stream needs a ticket for it. */
export function needsTicket(credential: string): boolean {
  return credential.startsWith(SESSION_PREFIX);
}

/**
 * The stream's URL: `query` holds tables, where[...] and the like; a
 * credential replaces any access_token or ticket there, as ticket= when it
 * is a stream ticket.
 */
export function realtimeUrl(projectId: string, query: QueryPairs, credential?: string): string {
  if (credential && needsTicket(credential)) throw new Error('a dashboard session must not go into a URL: get a stream ticket');
  const param = credential?.startsWith(TICKET_PREFIX) ? 'ticket' : 'access_token';
  const pairs: QueryPairs = credential
    ? [...query.filter(([name]) => name !== 'access_token' && name !== 'ticket'), [param, credential]]
    : query;
  return generatedUrl(projectId, '/realtime', pairs);
}

/** Whether a console operation is the stream (it is opened, not sent). */
export function isStreamOperation(operation: { method: string; path: string }): boolean {
  return operation.method.toUpperCase() === 'GET' && operation.path === '/realtime';
}

function decode(text: string): unknown {
  try {
    return parseExactJson(text);
  } catch {
    return text;
  }
}

/**
 * Why the server refused to open a stream: EventSource only says it failed,
 * so the same request is sent once more with fetch to read its error envelope
 * (a stream that opens this time is closed at once).
 */
async function refusalOf(url: string): Promise<ErrorBody> {
  const abort = new AbortController();
  try {
    const response = await fetch(url, { headers: { Accept: 'text/event-stream' }, signal: abort.signal });
    if (response.ok) return { code: 'UNAVAILABLE', message: 'The stream closed; it opens again when retried.' };
    const body = decode(await response.text()) as { error?: ErrorBody } | undefined;
    if (body?.error?.code) return body.error;
    return { code: 'BAD_RESPONSE', message: `The stream was refused with status ${response.status}.` };
  } catch {
    return { code: 'UNAVAILABLE', message: 'The server could not be reached.' };
  } finally {
    abort.abort();
  }
}

/** Opens the stream; the returned function closes it (call it on unmount). */
export function openStream(url: string, handlers: StreamHandlers): () => void {
  const source = new EventSource(url);
  let opened = false;
  let closed = false;
  const stop = (error?: ErrorBody) => {
    if (closed) return;
    closed = true;
    source.close();
    handlers.onState?.('stopped');
    if (error) handlers.onStopped?.(error);
  };
  handlers.onState?.('connecting');
  source.onopen = () => {
    opened = true;
    handlers.onState?.('live');
  };
  for (const name of STREAM_EVENTS) {
    source.addEventListener(name, (raw) => {
      if (closed) return;
      // A plain Event named error is EventSource's connection failure; the
      // server's error event is a MessageEvent with the envelope as data.
      if (!(raw instanceof MessageEvent)) {
        if (source.readyState === EventSource.CLOSED) void refusalOf(url).then((error) => stop(error));
        else handlers.onState?.(opened ? 'reconnecting' : 'connecting');
        return;
      }
      const event: StreamEvent = { id: raw.lastEventId, event: name, data: decode(String(raw.data)), receivedAt: new Date() };
      handlers.onEvent?.(event);
      if (name === 'error') {
        // The server ends the stream after an error event; EventSource would
        // reconnect and be refused again, so stop here with its reason.
        const envelope = event.data as { error?: ErrorBody } | undefined;
        stop(envelope?.error ?? { code: 'INTERNAL_ERROR', message: 'The stream ended with an error.' });
      }
    });
  }
  return () => {
    if (closed) return;
    closed = true;
    source.close();
  };
}

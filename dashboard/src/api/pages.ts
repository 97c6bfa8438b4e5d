import type { Envelope } from './client';

/**
 * Lists the platform API reads newest first and pages by before=<id> (the
 * outbox, a webhook's deliveries): the server names the next page in
 * meta.next_before, and names none on the last, even when it is full.
 */
export interface BeforePage<T> {
  items: T[];
  /** The before= of the next (older) page; null on the last. */
  nextBefore: number | null;
}

/** A page as the server answered it: its items and meta.next_before. */
export function beforePage<T>(answer: Envelope<T[]>): BeforePage<T> {
  const next = answer.meta?.next_before;
  return { items: answer.data, nextBefore: typeof next === 'number' ? next : null };
}

/** The query string of a page of limit entries before the entry with id before (none: the newest). */
export function beforeQuery(limit: number, before: number | null): string {
  return before === null ? `limit=${limit}` : `limit=${limit}&before=${before}`;
}

import { describe, expect, it } from 'vitest';
import { OUTBOX_PAGE, outboxPage, outboxQuery, splitLinks, type OutboxMessage } from './email';

describe('outbox paging', () => {
  it('asks for the newest page first, then before what the server named, and stops where it named none', () => {
    expect(outboxQuery(null)).toBe(`limit=${OUTBOX_PAGE}`);
    expect(outboxQuery(41)).toBe(`limit=${OUTBOX_PAGE}&before=41`);
    const full = Array.from({ length: OUTBOX_PAGE }, (_, i) => ({ id: 100 - i }) as OutboxMessage);
    expect(outboxPage({ data: full, meta: { next_before: 51 } })).toEqual({ messages: full, nextBefore: 51 });
    // A page exactly full that holds the oldest message is the last.
    expect(outboxPage({ data: full, meta: { next_before: null } }).nextBefore).toBeNull();
    expect(outboxPage({ data: [] }).nextBefore).toBeNull();
  });
});

describe('splitLinks', () => {
  it('finds the links of a message and keeps the text around them', () => {
    const parts = splitLinks('Open:\nhttps://x.example/reset?token=a&b=1\n\nThanks');
    expect(parts).toEqual([
      { text: 'Open:\n' },
      { text: 'https://x.example/reset?token=a&b=1', href: 'https://x.example/reset?token=a&b=1' },
      { text: '\n\nThanks' },
    ]);
    expect(splitLinks('no link')).toEqual([{ text: 'no link' }]);
    expect(splitLinks('javascript:alert(1)')).toEqual([{ text: 'javascript:alert(1)' }]);
  });
});

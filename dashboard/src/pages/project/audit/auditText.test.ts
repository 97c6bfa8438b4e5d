import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../data/members/members';
import { actionText, detailsText } from './auditText';

const entry = (action: string, details: Record<string, unknown> = {}): AuditEntry => ({
  id: 1,
  at: '2026-11-29T12:00:00Z',
  actor_id: 1,
  actor_email: 'a@example.com',
  action,
  target: '',
  details,
});

describe('audit text', () => {
  it('says what an action did, and a removal of oneself as leaving', () => {
    expect(actionText(entry('schema.generated'))).toBe('generated the API');
    expect(actionText(entry('member.removed', { left: true }))).toBe('left the project');
    expect(actionText(entry('something.new'))).toBe('something.new');
  });
  it('lists details as pairs', () => {
    expect(detailsText({ version: 2, tables: ['a', 'b'], left: true })).toBe('version: 2 · tables: a, b');
  });
});

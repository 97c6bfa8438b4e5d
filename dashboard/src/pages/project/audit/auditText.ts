import type { AuditEntry } from '../../../data/members/members';

/** What an action did, in words, for the audit log's table. */
const ACTIONS: Record<string, string> = {
  'project.created': 'created the project',
  'project.updated': 'changed the settings',
  'schema.saved': 'saved the schema',
  'schema.generated': 'generated the API',
  'schema.reset': 'reset the draft to a version',
  'schema.refreshed': 'refreshed the schema from the database',
  'key.created': 'created an API key',
  'key.revoked': 'revoked an API key',
  'member.invited': 'invited a member',
  'member.invitation_revoked': 'revoked an invitation',
  'member.joined': 'joined the project',
  'member.role_changed': 'changed a role',
  'member.removed': 'removed a member',
  'ownership.transferred': 'transferred the project',
  'webhook.created': 'created a webhook',
  'webhook.updated': 'changed a webhook',
  'webhook.deleted': 'deleted a webhook',
  'webhook.secret_rotated': "rotated a webhook's secret",
  'webhook.replayed': 'replayed a webhook',
};

export function actionText(entry: AuditEntry): string {
  if (entry.action === 'member.removed' && entry.details?.left) return 'left the project';
  return ACTIONS[entry.action] ?? entry.action;
}

/** The details as short key: value pairs (arrays joined). */
export function detailsText(details: Record<string, unknown> | undefined): string {
  if (!details) return '';
  return Object.entries(details)
    .filter(([key]) => key !== 'left')
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(', ') : String(value)}`)
    .join(' · ');
}

// The roles of a project's members (docs/teams.md): each may do what the
// ones below it may. The server decides; the dashboard only hides or
// disables what the caller's role would be refused.
export type Role = 'owner' | 'admin' | 'developer' | 'viewer';

const RANK: Record<Role, number> = { viewer: 1, developer: 2, admin: 3, owner: 4 };

/** Whether role includes need (an unknown role includes nothing). */
export function atLeast(role: string | undefined, need: Role): boolean {
  return (RANK[role as Role] ?? 0) >= RANK[need];
}

/** The tooltip of a control the caller's role may not use. */
export function roleNeeded(need: Role): string {
  return need === 'owner' ? 'Only the project owner can do this' : `Needs the ${need} role or higher`;
}

/** What each role may do, as the Members page explains it. */
export const ROLE_SUMMARY: Record<Role, string> = {
  owner: 'Everything, including deleting the project and transferring it',
  admin: 'Everything but deleting and transferring: members, invitations, the database connection, the audit log',
  developer: 'Schema, generate, API keys, data, webhooks, name and CORS',
  viewer: 'Read only: schema, docs, data, analytics, logs, webhooks',
};

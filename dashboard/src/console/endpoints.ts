// What each endpoint of the generated API is for, in a few words, for the
// list a generate answers with (the paths are relative to /v1/<project>).

const AUTH: Record<string, string> = {
  'POST /auth/register': 'Register an end user; answers tokens',
  'POST /auth/login': 'Sign an end user in; answers tokens',
  'POST /auth/refresh': 'Trade a refresh token for a new pair',
  'POST /auth/logout': 'Revoke a refresh token',
  'GET /auth/me': 'The signed-in end user',
  'POST /auth/password-reset': 'Mail a password reset link (always 202)',
  'POST /auth/password-reset/confirm': 'Set a new password with a reset token; answers tokens',
  'POST /auth/verify-email': 'Verify an e-mail address with its token',
  'POST /auth/verify-email/resend': 'Mail a new verification link (always 202)',
  'POST /auth/email-change': "Mail a link to confirm the signed-in user's new address",
  'POST /auth/email-change/confirm': 'Move the user to the new address with its token',
  'GET /auth/providers': 'The enabled sign-in providers (name, kind)',
  'GET /auth/providers/{name}/authorize': 'Start a sign-in with a provider (open in the browser with ?redirect_to=)',
  'GET /auth/providers/{name}/callback': 'Where the provider returns (register it at the provider)',
  'POST /auth/providers/exchange': "Trade a provider sign-in's one-time code for tokens",
};

export function endpointPurpose(method: string, path: string): string {
  const key = `${method.toUpperCase()} ${path}`;
  if (AUTH[key]) return AUTH[key];
  if (key === 'GET /realtime') return 'Live changes of realtime tables (Server-Sent Events)';
  if (key === 'GET /openapi.json') return 'The OpenAPI description (no credential needed)';
  if (key === 'GET /docs') return 'Swagger UI (no credential needed)';
  const match = /^\/([a-z][a-z0-9_]*)(\/\{id\}|\/aggregate)?$/.exec(path);
  if (!match) return '';
  const [, table, rest] = match;
  if (rest === '/aggregate') return `Counts, sums, averages, minimums and maximums of ${table}, by group`;
  const one = rest === '/{id}';
  switch (method.toUpperCase()) {
    case 'GET':
      return one ? `Get one record of ${table}` : `List ${table}: filter, search, sort, page; ?format=csv or ndjson exports`;
    case 'POST':
      return `Create a record in ${table}, or many from an array (upsert with on_conflict)`;
    case 'PUT':
      return `Replace a record of ${table}`;
    case 'PATCH':
      return one ? `Update fields of a record of ${table}` : `Update the records of ${table} that match a filter`;
    case 'DELETE':
      return one ? `Delete a record of ${table}` : `Delete the records of ${table} that match a filter`;
  }
  return '';
}

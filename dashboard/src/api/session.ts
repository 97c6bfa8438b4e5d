// The platform session token, kept in localStorage so a reload stays signed in.
const TOKEN_KEY = 'tablesmith.session';
const listeners = new Set<() => void>();

export function getSessionToken(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

let endedByUser = false;

/** Starts (a token) or ends (null) the session; `byUser` marks a deliberate log-out. */
export function setSessionToken(token: string | null, options: { byUser?: boolean } = {}): void {
  endedByUser = !token && Boolean(options.byUser);
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
  listeners.forEach((notify) => notify());
}

/** True after a log-out, when the next log-in should not return to the last page. */
export function sessionEndedByUser(): boolean {
  return endedByUser;
}

/** Calls `notify` whenever the session starts or ends; returns the unsubscribe. */
export function onSessionChange(notify: () => void): () => void {
  listeners.add(notify);
  return () => listeners.delete(notify);
}

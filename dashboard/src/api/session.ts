// The platform session token, kept in localStorage so a reload stays signed in.
const TOKEN_KEY = 'tablesmith.session';
const listeners = new Set<() => void>();

export function getSessionToken(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

export function setSessionToken(token: string | null): void {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
  listeners.forEach((notify) => notify());
}

/** Calls `notify` whenever the session starts or ends; returns the unsubscribe. */
export function onSessionChange(notify: () => void): () => void {
  listeners.add(notify);
  return () => listeners.delete(notify);
}

// API key secrets kept in this browser. The server shows a key's secret only
// once, at creation, so the dashboard remembers the ones it created (or that
// the user pasted) per project, to authorize API Docs, Test and Data.
//
// First of all, and chosen unless the user picks a key, comes the owner's
// own dashboard session: the generated API accepts it from the project's
// owner like a read-write key, but counts nothing against the plan and
// keeps it out of the project's analytics (docs/limits-and-analytics.md).
import { useCallback, useMemo, useSyncExternalStore } from 'react';
import { getSessionToken, onSessionChange } from '../api/session';

export interface StoredKey {
  id: string;
  name: string;
  secret: string;
  scope?: string;
  prefix?: string;
}

const listeners = new Set<() => void>();
const cache = new Map<string, { raw: string | null; keys: StoredKey[] }>();

const keysSlot = (projectId: string) => `tablesmith.keys.${projectId}`;
const selectedSlot = (projectId: string) => `tablesmith.selected-key.${projectId}`;

export function storedKeys(projectId: string): StoredKey[] {
  const raw = localStorage.getItem(keysSlot(projectId));
  const cached = cache.get(projectId);
  if (cached && cached.raw === raw) return cached.keys;
  let keys: StoredKey[] = [];
  try {
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    if (Array.isArray(parsed)) keys = parsed.filter((k): k is StoredKey => typeof k?.secret === 'string');
  } catch {
    keys = [];
  }
  cache.set(projectId, { raw, keys });
  return keys;
}

function writeKeys(projectId: string, keys: StoredKey[]): void {
  localStorage.setItem(keysSlot(projectId), JSON.stringify(keys));
  listeners.forEach((notify) => notify());
}

/**
 * Keeps a key's secret. It does not select the key: the owner's own tools
 * keep using the dashboard session, which never counts against the plan,
 * until the owner picks a key on purpose.
 */
export function rememberKey(projectId: string, key: StoredKey): void {
  writeKeys(projectId, [key, ...storedKeys(projectId).filter((k) => k.id !== key.id)]);
}

export function rememberPastedKey(projectId: string, secret: string, name = 'Pasted key'): StoredKey {
  const trimmed = secret.trim();
  const existing = storedKeys(projectId).find((k) => k.secret === trimmed);
  if (existing) {
    selectKey(projectId, existing.id);
    return existing;
  }
  const key: StoredKey = { id: `pasted-${Date.now()}`, name, secret: trimmed, prefix: trimmed.slice(0, 12) };
  rememberKey(projectId, key);
  selectKey(projectId, key.id); // "Use this key": chosen on purpose
  return key;
}

export function forgetKey(projectId: string, keyId: string): void {
  writeKeys(projectId, storedKeys(projectId).filter((k) => k.id !== keyId));
}

export function forgetProjectKeys(projectId: string): void {
  localStorage.removeItem(keysSlot(projectId));
  localStorage.removeItem(selectedSlot(projectId));
  listeners.forEach((notify) => notify());
}

export function selectKey(projectId: string, keyId: string | null): void {
  if (keyId) localStorage.setItem(selectedSlot(projectId), keyId);
  else localStorage.removeItem(selectedSlot(projectId));
  listeners.forEach((notify) => notify());
}

/**
 * Forgets everything this dashboard keeps in the browser (keys, the chosen
 * key, the Test console's history) for every project: a log-out leaves no
 * secret or request behind for the next person at this browser.
 */
export function forgetEverythingStored(): void {
  const ours: string[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const name = localStorage.key(i);
    if (name?.startsWith('tablesmith.')) ours.push(name);
  }
  ours.forEach((name) => localStorage.removeItem(name));
  cache.clear();
  listeners.forEach((notify) => notify());
}

/** The id of the dashboard-session choice; it is never stored. */
export const SESSION_KEY_ID = 'dashboard-session';

/** The signed-in owner's session as a credential choice, or null when signed out. */
export function sessionCredential(token: string | null): StoredKey | null {
  return token ? { id: SESSION_KEY_ID, name: 'Your dashboard session (not counted against the plan)', secret: token, scope: 'owner' } : null;
}

/** Whether a credential choice is the owner's session rather than an API key. */
export function isSessionCredential(key: StoredKey | undefined): boolean {
  return key?.id === SESSION_KEY_ID;
}

/** The credential choices: the session first, then the stored keys. */
function choices(session: StoredKey | null, keys: StoredKey[]): StoredKey[] {
  return session ? [session, ...keys] : keys;
}

export function selectedKey(projectId: string): StoredKey | undefined {
  const keys = choices(sessionCredential(getSessionToken()), storedKeys(projectId));
  const id = localStorage.getItem(selectedSlot(projectId));
  return keys.find((k) => k.id === id) ?? keys[0];
}

function subscribe(notify: () => void): () => void {
  listeners.add(notify);
  const onStorage = (event: StorageEvent) => {
    if (event.key?.startsWith('tablesmith.')) notify();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(notify);
    window.removeEventListener('storage', onStorage);
  };
}

/**
 * The credential choices for the generated API (the owner's session, then
 * the project's remembered keys) and the one chosen for requests.
 */
export function useKeyVault(projectId: string) {
  const stored = useSyncExternalStore(subscribe, () => storedKeys(projectId));
  const token = useSyncExternalStore(onSessionChange, getSessionToken);
  const keys = useMemo(() => choices(sessionCredential(token), stored), [token, stored]);
  const selectedId = useSyncExternalStore(subscribe, () => localStorage.getItem(selectedSlot(projectId)));
  const selected = keys.find((k) => k.id === selectedId) ?? keys[0];
  const select = useCallback((keyId: string | null) => selectKey(projectId, keyId), [projectId]);
  return { keys, selected, select };
}

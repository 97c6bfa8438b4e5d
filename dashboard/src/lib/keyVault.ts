// API key secrets kept in this browser. The server shows a key's secret only
// once, at creation, so the dashboard remembers the ones it created (or that
// the user pasted) per project, to authorize API Docs, Test and Data.
import { useCallback, useSyncExternalStore } from 'react';

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

export function rememberKey(projectId: string, key: StoredKey): void {
  writeKeys(projectId, [key, ...storedKeys(projectId).filter((k) => k.id !== key.id)]);
  selectKey(projectId, key.id);
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

export function selectedKey(projectId: string): StoredKey | undefined {
  const keys = storedKeys(projectId);
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

/** The project's remembered keys and the one chosen for requests. */
export function useKeyVault(projectId: string) {
  const keys = useSyncExternalStore(subscribe, () => storedKeys(projectId));
  const selectedId = useSyncExternalStore(subscribe, () => localStorage.getItem(selectedSlot(projectId)));
  const selected = keys.find((k) => k.id === selectedId) ?? keys[0];
  const select = useCallback((keyId: string | null) => selectKey(projectId, keyId), [projectId]);
  return { keys, selected, select };
}

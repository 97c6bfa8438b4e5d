import { useSyncExternalStore } from 'react';
import { getSessionToken, onSessionChange } from './session';

export function useSessionToken(): string | null {
  return useSyncExternalStore(onSessionChange, getSessionToken);
}

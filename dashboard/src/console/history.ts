// The Test console's request history, kept per project in localStorage.
import type { ConsoleRequest } from './consoleRequest';

export interface HistoryEntry {
  at: string;
  operationId: string;
  method: string;
  path: string;
  url: string;
  body?: string;
  status: number;
  timeMs: number;
  /** The whole form, to fill it in again from the history. */
  request?: ConsoleRequest;
}

export const HISTORY_LIMIT = 30;

const slot = (projectId: string) => `tablesmith.history.${projectId}`;

export function readHistory(projectId: string): HistoryEntry[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(slot(projectId)) ?? '[]');
    // An entry written by an older dashboard (or edited by hand) that
    // lacks a field is dropped rather than allowed to break the page.
    return Array.isArray(parsed) ? parsed.filter(isEntry) : [];
  } catch {
    return [];
  }
}

function isEntry(e: unknown): e is HistoryEntry {
  const v = e as Partial<HistoryEntry> | null;
  return (
    typeof v === 'object' && v !== null && typeof v.at === 'string' && typeof v.operationId === 'string' &&
    typeof v.method === 'string' && typeof v.path === 'string' && typeof v.url === 'string' &&
    typeof v.status === 'number' && typeof v.timeMs === 'number'
  );
}

/** The history with `entry` first and at most HISTORY_LIMIT entries. */
export function withEntry(history: HistoryEntry[], entry: HistoryEntry): HistoryEntry[] {
  return [entry, ...history].slice(0, HISTORY_LIMIT);
}

export function writeHistory(projectId: string, history: HistoryEntry[]): void {
  localStorage.setItem(slot(projectId), JSON.stringify(history));
}

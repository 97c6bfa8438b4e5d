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
    return Array.isArray(parsed) ? (parsed as HistoryEntry[]) : [];
  } catch {
    return [];
  }
}

/** The history with `entry` first and at most HISTORY_LIMIT entries. */
export function withEntry(history: HistoryEntry[], entry: HistoryEntry): HistoryEntry[] {
  return [entry, ...history].slice(0, HISTORY_LIMIT);
}

export function writeHistory(projectId: string, history: HistoryEntry[]): void {
  localStorage.setItem(slot(projectId), JSON.stringify(history));
}

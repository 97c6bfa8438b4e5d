// Projects that front an existing PostgreSQL database (docs/external-databases.md):
// where a connection problem belongs in the form, the connection's health in
// words, and the differences "Refresh from database" reports.
import type { ConnectionHealth, DatabaseChange, IntrospectionReport, RefreshResult } from '../api/types';
import { stableJson } from '../lib/stableJson';

export const EXTERNAL_ENGINE = 'postgres_external';

export interface ConnectionFieldErrors {
  url?: string;
  schema?: string;
}

// Kinds of connection problems (error.info.problem) that concern the schema
// name rather than the URL.
const SCHEMA_PROBLEMS = new Set(['schema_not_found', 'invalid_schema']);

/**
 * Puts a refused connection's problem at the field it concerns. The server
 * names it under details.connection (and may use connection.url /
 * connection.schema); error.info.problem says its kind, which decides
 * between the URL and the schema field.
 */
export function connectionFieldErrors(details: Record<string, string>, info: Record<string, unknown> = {}): ConnectionFieldErrors {
  const out: ConnectionFieldErrors = {
    url: details['connection.url'] ?? details.url,
    schema: details['connection.schema'] ?? details.schema,
  };
  const message = details.connection;
  if (message) {
    const problem = typeof info.problem === 'string' ? info.problem : '';
    const aboutSchema =
      SCHEMA_PROBLEMS.has(problem) ||
      (problem === 'insufficient_privilege' && /\bon schema\b/i.test(message)) ||
      (!problem && /^schema\b/i.test(message));
    if (aboutSchema) out.schema ??= message;
    else out.url ??= message;
  }
  return out;
}

export interface HealthSummary {
  label: string;
  tone: 'success' | 'danger' | 'neutral';
  detail?: string;
}

/** The connection's status (up, down with its problem, unknown) for a badge and a sentence. */
export function healthSummary(status: ConnectionHealth | undefined): HealthSummary {
  switch (status?.state) {
    case 'up':
      return { label: 'Reachable', tone: 'success' };
    case 'down':
      return { label: 'Unreachable', tone: 'danger', detail: status.problem || 'The database does not answer.' };
    default:
      return { label: 'Not checked yet', tone: 'neutral', detail: 'Tablesmith connects on the first API request.' };
  }
}

export interface SplitChanges {
  /** Made in the database outside Tablesmith: adopting publishes them. */
  database: DatabaseChange[];
  /** Unpublished edits of the draft that generate would apply. */
  draft: DatabaseChange[];
}

export function splitRefreshChanges(changes: DatabaseChange[] | null | undefined): SplitChanges {
  const all = changes ?? [];
  return { database: all.filter((c) => c.origin === 'database'), draft: all.filter((c) => c.origin !== 'database') };
}

const KIND_LABELS: Record<string, string> = {
  table_added: 'Table added',
  table_removed: 'Table removed',
  table_changed: 'Table changed',
  column_added: 'Column added',
  column_removed: 'Column removed',
  column_changed: 'Column changed',
};

export function databaseChangeLabel(kind: string): string {
  return KIND_LABELS[kind] ?? kind.replace(/_/g, ' ');
}

const RELATION_KIND_LABELS: Record<string, string> = {
  table: 'table',
  view: 'view',
  materialized_view: 'materialized view',
  foreign_table: 'foreign table',
  partition: 'partition',
};

export function relationKindLabel(kind: string): string {
  return RELATION_KIND_LABELS[kind] ?? kind.replace(/_/g, ' ');
}

/** What a refresh found or did, in one sentence. */
export function refreshSummary(result: Pick<RefreshResult, 'changes' | 'applied' | 'version'>): string {
  const { database, draft } = splitRefreshChanges(result.changes);
  const n = database.length;
  const changes = `${n} ${n === 1 ? 'change' : 'changes'}`;
  if (result.applied) {
    if (n === 0) return 'Nothing to adopt: the database matches the published schema';
    return `Adopted ${changes} made in the database${result.version ? ` as version ${result.version}` : ''}`;
  }
  const edits = draft.length ? `; your draft has ${draft.length} unpublished ${draft.length === 1 ? 'edit' : 'edits'}` : '';
  if (n === 0) return `The database matches the published schema${edits}`;
  return `The database has ${changes} the published schema does not have${edits}`;
}

/** Whether a new read left out the same tables with the same notes as the stored report. */
export function sameReport(stored: Pick<IntrospectionReport, 'unsupported' | 'notes'> | undefined, read: Pick<IntrospectionReport, 'unsupported' | 'notes'>): boolean {
  const norm = (r: Pick<IntrospectionReport, 'unsupported' | 'notes'> | undefined) => stableJson({ unsupported: r?.unsupported ?? [], notes: r?.notes ?? [] });
  return norm(stored) === norm(read);
}

// Published versions of a project's schema and what going back to one means
// for the draft: the reset confirmation names what the draft gains and loses.
import type { SchemaVersion } from '../api/types';
import type { SchemaColumn, SchemaDocument, SchemaTable } from '../schema/document';
import { stableJson } from '../lib/stableJson';

/** The document of a version (the list may leave it out). */
export function versionDocument(version: SchemaVersion | undefined): SchemaDocument | undefined {
  const doc = version?.document;
  return doc ? { tables: doc.tables ?? [] } : undefined;
}

/** Newest first, as the history lists them. */
export function newestFirst(versions: SchemaVersion[]): SchemaVersion[] {
  return [...versions].sort((a, b) => b.version - a.version);
}

export interface DocumentDifference {
  addedTables: string[];
  removedTables: string[];
  /** `table.column` of columns only the target has, in tables both have. */
  addedColumns: string[];
  /** `table.column` of columns only the current document has, in tables both have. */
  removedColumns: string[];
  /** `table.column` of columns both have with different settings. */
  changedColumns: string[];
  /** Tables whose own settings (auth, permissions, id type…) differ. */
  changedTables: string[];
}

/**
 * What replacing `current` with `target` changes, by name (layout and
 * rename markers are not changes). Tables and columns keep the target's order.
 */
export function compareDocuments(current: SchemaDocument, target: SchemaDocument): DocumentDifference {
  const diff: DocumentDifference = { addedTables: [], removedTables: [], addedColumns: [], removedColumns: [], changedColumns: [], changedTables: [] };
  const currentTables = new Map(current.tables.map((t) => [t.name, t]));
  const targetNames = new Set(target.tables.map((t) => t.name));
  for (const t of current.tables) if (!targetNames.has(t.name)) diff.removedTables.push(t.name);
  for (const t of target.tables) {
    const before = currentTables.get(t.name);
    if (!before) {
      diff.addedTables.push(t.name);
      continue;
    }
    if (stableJson(tableSettings(before)) !== stableJson(tableSettings(t))) diff.changedTables.push(t.name);
    const beforeColumns = new Map(before.columns.map((c) => [c.name, c]));
    const afterNames = new Set(t.columns.map((c) => c.name));
    for (const c of before.columns) if (!afterNames.has(c.name)) diff.removedColumns.push(`${t.name}.${c.name}`);
    for (const c of t.columns) {
      const old = beforeColumns.get(c.name);
      if (!old) diff.addedColumns.push(`${t.name}.${c.name}`);
      else if (stableJson(columnSettings(old)) !== stableJson(columnSettings(c))) diff.changedColumns.push(`${t.name}.${c.name}`);
    }
  }
  return diff;
}

export function isSameDocument(diff: DocumentDifference): boolean {
  return Object.values(diff).every((list) => list.length === 0);
}

function tableSettings(table: SchemaTable): Omit<SchemaTable, 'columns' | 'position' | 'renamed_from' | 'name'> {
  const { columns: _c, position: _p, renamed_from: _r, name: _n, ...rest } = table;
  return rest;
}

function columnSettings(column: SchemaColumn): Omit<SchemaColumn, 'renamed_from'> {
  const { renamed_from: _r, ...rest } = column;
  return rest;
}

/** The name the server's export gives a file, for when its header is unreadable. */
export function exportFileName(projectId: string, version?: number): string {
  return version ? `${projectId}-schema-v${version}.json` : `${projectId}-schema.json`;
}

/** The descriptions of the changes a version applied, or an empty list. */
export function appliedDescriptions(version: SchemaVersion): string[] {
  return (version.applied ?? []).map((c) => c.description).filter(Boolean);
}

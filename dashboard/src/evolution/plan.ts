// The change plan of a generate (docs/schema-evolution.md) in the shape the
// Generate page shows it: each change with the rows that would block it and
// the server's refusal for it, whether they came from the plan's prechecks
// (?check=true) or from a 409 of the generate itself.
import { ApiError } from '../api/client';
import type { AfterCommitStep, ChangePlan, PlannedChange, Violation } from '../api/types';

/** The plan with every list present, whatever an older or newer server leaves out. */
export function normalizePlan(raw: Partial<ChangePlan> | null | undefined): ChangePlan {
  const plan = raw ?? {};
  return {
    changes: plan.changes ?? [],
    statements: plan.statements ?? [],
    after_commit: plan.after_commit ?? [],
    prechecks: plan.prechecks ?? [],
    locks: plan.locks ?? [],
    destructive: Boolean(plan.destructive),
    notes: plan.notes ?? [],
    violations: plan.violations ?? undefined,
  };
}

/** Where a change or a violation applies, as the server keys details: `table` or `table.column`. */
export function pathOf(item: { table: string; column?: string }): string {
  return item.column ? `${item.table}.${item.column}` : item.table;
}

/** One violation in words: how many rows, which rule, which ids. */
export function describeViolation(v: Violation): string {
  const rows = v.count === 1 ? '1 existing row breaks' : `${v.count.toLocaleString('en-US')} existing rows break`;
  const ids = v.examples.length ? ` (${v.count > v.examples.length ? 'for example ' : ''}${v.examples.length === 1 ? 'id' : 'ids'} ${v.examples.join(', ')})` : '';
  return `${rows} this rule: ${v.rule}${ids}`;
}

/** The violations a refused generate carried in error.info.violations, if it did. */
export function violationsOf(error: unknown): Violation[] {
  if (!(error instanceof ApiError)) return [];
  const list = error.info.violations;
  if (!Array.isArray(list)) return [];
  return list.filter(isViolation).map((v) => ({ ...v, examples: v.examples ?? [] }));
}

function isViolation(value: unknown): value is Violation {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return typeof v.table === 'string' && typeof v.rule === 'string' && typeof v.count === 'number' && (v.examples === undefined || v.examples === null || Array.isArray(v.examples));
}

export interface ChangeFindings {
  /** Rows that break what this change needs. */
  violations: Violation[];
  /** The server's refusal of this change, in its words (details of a 409). */
  refusals: string[];
}

export interface AttachedFindings {
  perChange: ChangeFindings[];
  /** Violations that match no listed change. */
  unmatchedViolations: Violation[];
  /** Refusal details that match no listed change, as [path, message]. */
  unmatchedRefusals: [string, string][];
}

/**
 * Puts each violation and each refusal detail at the change it concerns:
 * the change of the same table and column; a table-wide one at the table's
 * own change, else its first change. Details whose path already carries
 * violations are left out: they say the same thing in one sentence.
 */
export function attachFindings(changes: PlannedChange[], violations: Violation[], refusal: Record<string, string> = {}): AttachedFindings {
  const perChange: ChangeFindings[] = changes.map(() => ({ violations: [], refusals: [] }));
  const unmatchedViolations: Violation[] = [];
  const unmatchedRefusals: [string, string][] = [];
  const seen = new Set<string>();

  for (const v of violations) {
    const key = `${pathOf(v)}\u0000${v.rule}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const at = changeIndexFor(changes, v.table, v.column);
    const entry = perChange[at];
    if (entry) entry.violations.push(v);
    else unmatchedViolations.push(v);
  }

  const violated = new Set(violations.map(pathOf));
  for (const [path, message] of Object.entries(refusal)) {
    if (violated.has(path)) continue;
    const dot = path.indexOf('.');
    const table = dot < 0 ? path : path.slice(0, dot);
    const column = dot < 0 ? undefined : path.slice(dot + 1);
    const at = changeIndexFor(changes, table, column);
    const entry = perChange[at];
    if (entry) entry.refusals.push(message);
    else unmatchedRefusals.push([path, message]);
  }
  return { perChange, unmatchedViolations, unmatchedRefusals };
}

function changeIndexFor(changes: PlannedChange[], table: string, column: string | undefined): number {
  if (column) {
    const exact = changes.findIndex((c) => c.table === table && c.column === column);
    if (exact >= 0) return exact;
    // A renamed column: the change names its new name, `from` the old one.
    const renamed = changes.findIndex((c) => c.table === table && c.from === column);
    return renamed;
  }
  const own = changes.findIndex((c) => c.table === table && !c.column);
  return own >= 0 ? own : changes.findIndex((c) => c.table === table);
}

/** The violations to show: the refusal's when a generate was refused (they are newer), else the plan's check. */
export function currentViolations(planViolations: Violation[] | undefined, refused: Violation[]): Violation[] {
  return refused.length ? refused : (planViolations ?? []);
}

/** The after-commit steps that failed and wait for the next generate. */
export function failedSteps(steps: AfterCommitStep[] | undefined): AfterCommitStep[] {
  return (steps ?? []).filter((s) => Boolean(s.error));
}

/** The plain table names of `"schema"."table"` lock targets, for people. */
export function lockedTableName(lock: string): string {
  const parts = lock.match(/"((?:[^"]|"")*)"|[^.]+/g) ?? [lock];
  const last = parts[parts.length - 1] ?? lock;
  return last.startsWith('"') ? last.slice(1, -1).replace(/""/g, '"') : last;
}

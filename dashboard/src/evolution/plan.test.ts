import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import type { PlannedChange, Violation } from '../api/types';
import {
  attachFindings,
  currentViolations,
  describeViolation,
  failedSteps,
  lockedTableName,
  normalizePlan,
  pathOf,
  violationsOf,
} from './plan';

const change = (kind: string, table: string, column?: string, extra: Partial<PlannedChange> = {}): PlannedChange => ({
  kind,
  table,
  column,
  destructive: false,
  description: `${kind} ${table}${column ? `.${column}` : ''}`,
  ...extra,
});

const violation = (table: string, column: string | undefined, rule: string, count: number, examples: string[]): Violation => ({
  table,
  column,
  rule,
  count,
  examples,
});

describe('normalizePlan', () => {
  it('fills every list an older server leaves out', () => {
    expect(normalizePlan({ changes: [change('create_table', 'users')] })).toEqual({
      changes: [change('create_table', 'users')],
      statements: [],
      after_commit: [],
      prechecks: [],
      locks: [],
      destructive: false,
      notes: [],
      violations: undefined,
    });
    expect(normalizePlan(null).changes).toEqual([]);
  });

  it('keeps violations when the plan was checked, even an empty list', () => {
    expect(normalizePlan({ violations: [] }).violations).toEqual([]);
  });
});

describe('violations in words', () => {
  it('counts rows and names the example ids', () => {
    expect(describeViolation(violation('people', 'name', 'every row has a value (the column becomes required)', 7, ['2', '3', '4', '5', '6']))).toBe(
      '7 existing rows break this rule: every row has a value (the column becomes required) (for example ids 2, 3, 4, 5, 6)',
    );
    expect(describeViolation(violation('people', 'email', 'every value is a valid e-mail address in lower case', 1, ['10']))).toBe(
      '1 existing row breaks this rule: every value is a valid e-mail address in lower case (id 10)',
    );
    expect(describeViolation(violation('t', undefined, 'the table is empty', 12000, []))).toBe('12,000 existing rows break this rule: the table is empty');
  });

  it('names a path like the server keys details', () => {
    expect(pathOf({ table: 'people', column: 'email' })).toBe('people.email');
    expect(pathOf({ table: 'people' })).toBe('people');
  });
});

describe('violationsOf a refused generate', () => {
  it('reads error.info.violations and ignores what is not a violation', () => {
    const error = new ApiError(409, {
      code: 'CONFLICT',
      message: 'Existing rows do not fit the new schema',
      details: { 'people.name': '7 existing rows break this' },
      info: { violations: [violation('people', 'name', 'every row has a value', 7, ['2']), { table: 'x' }, null] },
    });
    expect(violationsOf(error)).toEqual([violation('people', 'name', 'every row has a value', 7, ['2'])]);
  });

  it('is empty for other errors', () => {
    expect(violationsOf(new ApiError(409, { code: 'CONFLICT', message: 'busy' }))).toEqual([]);
    expect(violationsOf(new Error('x'))).toEqual([]);
    expect(violationsOf(new ApiError(409, { code: 'CONFLICT', message: 'x', info: { violations: 'no' } }))).toEqual([]);
  });
});

describe('attachFindings', () => {
  const changes = [
    change('create_table', 'tags'),
    change('alter_column', 'people', 'name'),
    change('alter_column', 'people', 'email'),
    change('rename_column', 'people', 'nickname', { from: 'nick' }),
    change('add_column', 'orders', 'total'),
  ];

  it('puts each violation at the change of its table and column', () => {
    const required = violation('people', 'name', 'every row has a value', 7, ['2', '3']);
    const unique = violation('people', 'email', 'no two rows share a value', 2, ['1', '3']);
    const lower = violation('people', 'email', 'every value is lower case', 1, ['10']);
    const found = attachFindings(changes, [required, unique, lower]);
    expect(found.perChange[1]?.violations).toEqual([required]);
    expect(found.perChange[2]?.violations).toEqual([unique, lower]);
    expect(found.perChange[0]?.violations).toEqual([]);
    expect(found.unmatchedViolations).toEqual([]);
  });

  it('finds a renamed column by its old name, and a table-wide rule at the table', () => {
    const old = violation('people', 'nick', 'no two rows share a value', 2, ['4', '5']);
    const empty = violation('orders', undefined, 'the table is empty', 3, ['1', '2', '3']);
    const found = attachFindings(changes, [old, empty]);
    expect(found.perChange[3]?.violations).toEqual([old]);
    expect(found.perChange[4]?.violations).toEqual([empty]);
  });

  it('keeps what matches no change apart, and lists a repeated violation once', () => {
    const stray = violation('ghosts', 'boo', 'rule', 1, ['9']);
    const twice = violation('people', 'name', 'every row has a value', 7, ['2']);
    const found = attachFindings(changes, [stray, twice, twice]);
    expect(found.unmatchedViolations).toEqual([stray]);
    expect(found.perChange[1]?.violations).toHaveLength(1);
  });

  it('puts refusal details at their change, leaving out paths that carry violations', () => {
    const found = attachFindings(changes, [violation('people', 'name', 'every row has a value', 7, ['2'])], {
      'people.name': '7 existing rows break this: every row has a value (ids 2)',
      'people.email': 'column of database type citext[], which Tablesmith keeps read-only',
      tags: 'cannot create',
      'elsewhere.x': 'unknown place',
    });
    expect(found.perChange[1]?.refusals).toEqual([]);
    expect(found.perChange[2]?.refusals).toEqual(['column of database type citext[], which Tablesmith keeps read-only']);
    expect(found.perChange[0]?.refusals).toEqual(['cannot create']);
    expect(found.unmatchedRefusals).toEqual([['elsewhere.x', 'unknown place']]);
  });
});

describe('currentViolations', () => {
  it('prefers a refusal over the older check of the plan', () => {
    const a = [violation('a', 'b', 'r', 1, ['1'])];
    const b = [violation('c', 'd', 'r', 2, ['2'])];
    expect(currentViolations(a, b)).toBe(b);
    expect(currentViolations(a, [])).toBe(a);
    expect(currentViolations(undefined, [])).toEqual([]);
  });
});

describe('after-commit steps and locks', () => {
  it('finds the steps that failed', () => {
    expect(
      failedSteps([
        { statement: 'VALIDATE CONSTRAINT a' },
        { statement: 'CREATE INDEX CONCURRENTLY b', error: 'canceling statement due to statement timeout' },
      ]),
    ).toEqual([{ statement: 'CREATE INDEX CONCURRENTLY b', error: 'canceling statement due to statement timeout' }]);
    expect(failedSteps(undefined)).toEqual([]);
  });

  it('names a locked table without its schema and quotes', () => {
    expect(lockedTableName('"p_dc4ifrj1tzs7"."people"')).toBe('people');
    expect(lockedTableName('"shop"."odd.""name"""')).toBe('odd."name"');
    expect(lockedTableName('plain')).toBe('plain');
  });
});

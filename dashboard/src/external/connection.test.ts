import { describe, expect, it } from 'vitest';
import {
  connectionFieldErrors,
  databaseChangeLabel,
  healthSummary,
  refreshSummary,
  relationKindLabel,
  sameReport,
  splitRefreshChanges,
} from './connection';

describe('connectionFieldErrors', () => {
  it('puts connection problems at the URL by default', () => {
    expect(
      connectionFieldErrors(
        { connection: 'cannot connect to db:5432/shop: connection refused (is PostgreSQL running and listening there?)' },
        { problem: 'cannot_connect' },
      ),
    ).toEqual({ url: 'cannot connect to db:5432/shop: connection refused (is PostgreSQL running and listening there?)', schema: undefined });
    expect(connectionFieldErrors({ connection: 'authentication failed for user "app": wrong password' }, { problem: 'authentication_failed' }).url).toMatch(
      /authentication failed/,
    );
  });

  it('puts schema problems at the schema', () => {
    const missing = 'schema "shp" does not exist in this database (schemas you can use: public, shop)';
    expect(connectionFieldErrors({ connection: missing }, { problem: 'schema_not_found' })).toEqual({ url: undefined, schema: missing });
    const bad = 'the schema must be the name of a PostgreSQL schema (at most 63 bytes)';
    expect(connectionFieldErrors({ connection: bad }, { problem: 'invalid_schema' }).schema).toBe(bad);
    const usage = 'user "app" lacks the USAGE privilege on schema "shop" (GRANT USAGE ON SCHEMA shop TO app)';
    expect(connectionFieldErrors({ connection: usage }, { problem: 'insufficient_privilege' })).toEqual({ url: undefined, schema: usage });
    const connect = 'user "app" lacks the CONNECT privilege on database "shop"';
    expect(connectionFieldErrors({ connection: connect }, { problem: 'insufficient_privilege' }).url).toBe(connect);
  });

  it('reads a missing field from the message when there is no problem kind', () => {
    const schema = 'schema is required (the PostgreSQL schema whose tables the API serves, e.g. public)';
    expect(connectionFieldErrors({ connection: schema })).toEqual({ url: undefined, schema });
    const url = 'url is required (postgres://user:password@host:5432/database)';
    expect(connectionFieldErrors({ connection: url })).toEqual({ url, schema: undefined });
  });

  it('takes field-keyed details first', () => {
    expect(connectionFieldErrors({ 'connection.url': 'bad url', 'connection.schema': 'bad schema', connection: 'other' }, { problem: 'invalid_url' })).toEqual({
      url: 'bad url',
      schema: 'bad schema',
    });
    expect(connectionFieldErrors({ url: 'u', schema: 's' })).toEqual({ url: 'u', schema: 's' });
    expect(connectionFieldErrors({ name: 'is required' })).toEqual({ url: undefined, schema: undefined });
  });
});

describe('healthSummary', () => {
  it('says whether the database answers', () => {
    expect(healthSummary({ state: 'up', since: '2026-01-01T00:00:00Z' })).toEqual({ label: 'Reachable', tone: 'success' });
    expect(healthSummary({ state: 'down', problem: 'connection refused' })).toEqual({ label: 'Unreachable', tone: 'danger', detail: 'connection refused' });
    expect(healthSummary({ state: 'down' }).detail).toBe('The database does not answer.');
    expect(healthSummary(undefined).label).toBe('Not checked yet');
    expect(healthSummary({ state: 'unknown' }).tone).toBe('neutral');
  });
});

describe('refresh changes', () => {
  it('separates changes made in the database from unpublished draft edits', () => {
    const db = { kind: 'column_added', table: 'orders', column: 'note', origin: 'database' as const, description: 'column orders.note was added in the database' };
    const draft = { kind: 'column_changed', table: 'orders', column: 'total', origin: 'draft' as const, description: 'the draft changes orders.total' };
    expect(splitRefreshChanges([db, draft])).toEqual({ database: [db], draft: [draft] });
    expect(splitRefreshChanges(null)).toEqual({ database: [], draft: [] });
  });

  it('labels kinds', () => {
    expect(databaseChangeLabel('table_removed')).toBe('Table removed');
    expect(databaseChangeLabel('something_new')).toBe('something new');
    expect(relationKindLabel('materialized_view')).toBe('materialized view');
  });
});

describe('refreshSummary', () => {
  const db = { kind: 'column_added', table: 'orders', column: 'note', origin: 'database' as const, description: 'added' };
  const edit = { kind: 'column_changed', table: 'orders', column: 'total', origin: 'draft' as const, description: 'changed' };

  it('says what a comparison found', () => {
    expect(refreshSummary({ changes: [], applied: false, version: 1 })).toBe('The database matches the published schema');
    expect(refreshSummary({ changes: [db], applied: false, version: 1 })).toBe('The database has 1 change the published schema does not have');
    expect(refreshSummary({ changes: [db, db, edit], applied: false, version: 1 })).toBe(
      'The database has 2 changes the published schema does not have; your draft has 1 unpublished edit',
    );
    expect(refreshSummary({ changes: [edit], applied: false, version: 1 })).toBe('The database matches the published schema; your draft has 1 unpublished edit');
  });

  it('says what adopting did', () => {
    expect(refreshSummary({ changes: [db], applied: true, version: 3 })).toBe('Adopted 1 change made in the database as version 3');
    expect(refreshSummary({ changes: null, applied: true, version: 2 })).toBe('Nothing to adopt: the database matches the published schema');
  });
});

describe('sameReport', () => {
  it('compares what was left out and noted, whatever the key order', () => {
    const stored = { unsupported: [{ table: 'v', kind: 'view', reason: 'views are not served' }], notes: [], introspected_at: '2026-01-01T00:00:00Z' };
    expect(sameReport(stored, { unsupported: [{ reason: 'views are not served', kind: 'view', table: 'v' }], notes: null })).toBe(true);
    expect(sameReport(stored, { unsupported: [], notes: [] })).toBe(false);
    expect(sameReport(undefined, { unsupported: null, notes: null })).toBe(true);
  });
});

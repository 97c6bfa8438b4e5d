// Resources of the platform API (CONTRACT 3). Fields the contract leaves
// open are optional so an older or newer server does not break the page.
import type { SchemaDocument } from '../schema/document';

export interface Account {
  id: string | number;
  email: string;
  name: string;
  plan: string;
  /** -1 (or null) marks a limit that does not apply. */
  limits?: { name?: string; rate_per_hour: number | null; projects: number | null };
  usage?: { projects: number };
  created_at?: string;
}

export interface Session {
  account: Account;
  token: string;
}

export interface Engine {
  name: string;
  label: string;
  description?: string;
  available: boolean;
  recommended: boolean;
  reason?: string;
}

export interface Project {
  id: string;
  name: string;
  engine: string;
  created_at: string;
  api_base_url?: string;
  docs_url?: string;
  published_version?: number | null;
  /** This hour's generated-API requests against the plan. */
  usage?: { used: number; limit: number | null; resets_at?: string | null };
  /** The database a postgres_external project fronts, password masked. */
  connection?: ConnectionView;
  /** What the last read of that database left out or remarked on. */
  introspection?: IntrospectionReport;
}

export interface ExternalConnection {
  url: string;
  schema: string;
}

export type ConnectionState = 'up' | 'down' | 'unknown';

export interface ConnectionHealth {
  state: ConnectionState | string;
  since?: string;
  problem?: string;
}

export interface ConnectionView extends ExternalConnection {
  status?: ConnectionHealth;
}

export interface UnsupportedTable {
  table: string;
  /** table, view, materialized_view, foreign_table or partition. */
  kind: string;
  reason: string;
}

export interface IntrospectionNote {
  table: string;
  column?: string;
  note: string;
}

export interface IntrospectionReport {
  unsupported: UnsupportedTable[] | null;
  notes: IntrospectionNote[] | null;
  introspected_at?: string;
}

export interface PlannedChange {
  kind: string;
  table: string;
  column?: string;
  destructive: boolean;
  description: string;
  from?: string;
  statements?: string[];
  /** Statements that finish the change after the commit without blocking the API. */
  after_commit?: string[];
  /** What existing rows must satisfy; checked before anything runs. */
  checks?: string[];
  /** PostgreSQL rewrites the whole table: its reads and writes wait. */
  rewrites_table?: boolean;
  /** Set on a change this server cannot apply; the plan is then refused. */
  unsupported?: string;
}

export interface Precheck {
  table: string;
  column?: string;
  rule: string;
  sql?: string;
  examples_sql?: string;
}

/** Existing rows that break a rule of the new schema (at most 5 example ids). */
export interface Violation {
  table: string;
  column?: string;
  rule: string;
  count: number;
  examples: string[];
}

export interface ChangePlan {
  changes: PlannedChange[];
  statements: string[];
  after_commit: string[];
  prechecks: Precheck[];
  /** Tables locked in SHARE mode (writes wait) while the prechecks run. */
  locks: string[];
  destructive: boolean;
  notes: string[];
  /** Present when the plan was asked for with ?check=true. */
  violations?: Violation[];
}

export interface Endpoint {
  method: string;
  path: string;
}

/** A statement run after the commit; `error` when it failed and was left for the next generate. */
export interface AfterCommitStep {
  statement: string;
  error?: string;
}

export type IndexBuildState = 'pending' | 'building' | 'ready' | 'failed' | 'superseded';

/** One index a version builds after its commit (docs/schema-evolution.md, "Index builds"). */
export interface IndexBuild {
  name: string;
  table: string;
  column: string;
  state: IndexBuildState;
  attempts: number;
  error?: string;
  updated_at?: string;
}

/** A version's index builds: `building` while any is pending or running, then `failed` or `ready`. */
export interface IndexStatus {
  state: 'building' | 'ready' | 'failed';
  total: number;
  ready: number;
  failed: number;
  items: IndexBuild[];
}

export interface GenerateResult {
  version: number;
  endpoints: Endpoint[];
  applied: PlannedChange[];
  statements?: string[];
  after_commit?: AfterCommitStep[];
  notes?: string[];
  /** The index builds as they stood when generate answered; they go on in the background. */
  indexes?: IndexStatus | null;
}

export interface SchemaVersion {
  version: number;
  created_at?: string;
  published_at?: string;
  schema?: SchemaDocument;
  document?: SchemaDocument;
  /** The changes this version applied (a refresh's are prefixed "refresh:"). */
  applied?: PlannedChange[] | null;
  /** Its index builds (absent from servers older than index builds). */
  indexes?: IndexStatus | null;
}

/** What GET/PUT /schema and POST /schema/reset say beside the draft. */
export interface SchemaMeta {
  published_version?: number;
  updated_at?: string | null;
  has_unpublished_changes?: boolean;
  valid?: boolean;
  problems?: Record<string, string>;
}

export interface DraftWithMeta {
  document: SchemaDocument;
  meta: SchemaMeta;
  message?: string;
}

export type DatabaseChangeOrigin = 'database' | 'draft';

/** A difference between the draft and the fronted database. */
export interface DatabaseChange {
  kind: string;
  table: string;
  column?: string;
  /** database: changed outside Tablesmith; draft: an unpublished edit of the draft. */
  origin: DatabaseChangeOrigin | string;
  description: string;
}

export interface RefreshResult {
  changes: DatabaseChange[] | null;
  /** Unpublished draft edits that adopting the database's changes replaces. */
  replaced: string[] | null;
  unsupported: UnsupportedTable[] | null;
  notes: IntrospectionNote[] | null;
  applied: boolean;
  version: number;
}

export type KeyScope = 'read' | 'read_write';

export interface ApiKey {
  id: string;
  name: string;
  scope: KeyScope;
  prefix: string;
  created_at: string;
  last_used_at?: string | null;
}

export interface CreatedApiKey extends ApiKey {
  key: string;
}

export type AnalyticsRange = '1h' | '24h' | '7d' | '30d';

export interface AnalyticsPoint {
  t: string;
  count_2xx: number;
  count_3xx: number;
  count_4xx: number;
  count_5xx: number;
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
}

export interface Analytics {
  summary: {
    total_requests: number;
    error_rate: number;
    p50_ms: number | null;
    p95_ms: number | null;
    p99_ms: number | null;
    rate_limited: number;
  };
  series: AnalyticsPoint[];
  top_endpoints: { method: string; path: string; count: number; error_rate: number; p95_ms: number | null }[];
  plan_usage?: { plan: string; limit: number | null; used: number; resets_at?: string | null };
}

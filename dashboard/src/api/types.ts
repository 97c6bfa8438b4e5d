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
}

export interface ExternalConnection {
  url: string;
  schema: string;
}

export interface PlannedChange {
  kind: string;
  table: string;
  column?: string;
  destructive: boolean;
  description: string;
  from?: string;
  statements?: string[];
  /** Set on a change this server cannot apply yet; the plan is then refused. */
  unsupported?: string;
}

export interface ChangePlan {
  changes: PlannedChange[];
  statements: string[];
  destructive: boolean;
}

export interface Endpoint {
  method: string;
  path: string;
}

export interface GenerateResult {
  version: number;
  endpoints: Endpoint[];
  applied: unknown[];
}

export interface SchemaVersion {
  version: number;
  created_at?: string;
  published_at?: string;
  schema?: SchemaDocument;
  document?: SchemaDocument;
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

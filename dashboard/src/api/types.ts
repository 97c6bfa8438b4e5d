// Resources of the platform API (CONTRACT 3), as aliases of the types
// generated from the platform API's OpenAPI document (platform.gen.ts,
// `npm run gen:api`). Only what the document cannot say is written here.
import type { SchemaDocument } from '../schema/document';
import type { components } from './platform.gen';

type Schemas = components['schemas'];

export type Account = Schemas['Account'];
export type Session = Schemas['Session'];
/** A right password on an account with two-factor on: the token of the login's second step. */
export type MfaRequired = Schemas['MfaRequired'];
export type Engine = Schemas['Engine'];
export type Project = Schemas['Project'];
export type LogEntry = Schemas['RequestLogEntry'];
export type ExternalConnection = Schemas['ExternalConnection'];
export type ConnectionHealth = Schemas['ConnectionHealth'];
export type UnsupportedTable = Schemas['UnsupportedTable'];
export type IntrospectionNote = Schemas['IntrospectionNote'];
export type IntrospectionReport = Schemas['IntrospectionReport'];
export type PlannedChange = Schemas['PlannedChange'];
/** Existing rows that break a rule of the new schema (at most 5 example ids). */
export type Violation = Schemas['Violation'];
export type ChangePlan = Schemas['ChangePlan'];
export type Endpoint = Schemas['Endpoint'];
export type AfterCommitStep = Schemas['AfterCommitStep'];
export type GenerateResult = Schemas['GenerateResult'];
export type IndexBuild = Schemas['IndexBuild'];
export type IndexBuildState = IndexBuild['state'];
export type IndexStatus = Schemas['IndexStatus'];
export type SchemaMeta = Schemas['SchemaMeta'];
export type DatabaseChange = Schemas['DatabaseChange'];
export type RefreshResult = Schemas['RefreshResult'];
export type KeyScope = Schemas['KeyScope'];
export type ApiKey = Schemas['ApiKey'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type AnalyticsRange = Schemas['AnalyticsRange'];
export type Analytics = Schemas['Analytics'];

/** A published version; its document is the builder's SchemaDocument. */
export type SchemaVersion = Omit<Schemas['SchemaVersion'], 'document'> & { document?: SchemaDocument };

/** What GET/PUT /schema and POST /schema/reset answer: the draft and its meta. */
export interface DraftWithMeta {
  document: SchemaDocument;
  meta: SchemaMeta;
  message?: string;
}

// Just enough of an OpenAPI 3.1 document to list a project's operations,
// their parameters and request bodies for the Test console.
import { stringMatching } from './patternExample';

export interface OpenApiSchema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  example?: unknown;
  examples?: unknown[];
  default?: unknown;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  items?: OpenApiSchema;
  readOnly?: boolean;
  writeOnly?: boolean;
  allOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
  anyOf?: OpenApiSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  description?: string;
  /** A string holding bytes (OpenAPI 3.1): a file part of a multipart body. */
  contentMediaType?: string;
}

export interface OpenApiParameter {
  $ref?: string;
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: OpenApiSchema;
  example?: unknown;
}

interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  parameters?: OpenApiParameter[];
  requestBody?: { $ref?: string; content?: Record<string, { schema?: OpenApiSchema; example?: unknown }> };
  responses?: Record<string, { $ref?: string; content?: Record<string, unknown> }>;
  security?: Record<string, string[]>[];
}

export interface OpenApiDocument {
  openapi?: string;
  info?: { title?: string; version?: string };
  servers?: { url: string }[];
  paths: Record<string, Record<string, OpenApiOperation | OpenApiParameter[]>>;
  components?: {
    schemas?: Record<string, OpenApiSchema>;
    parameters?: Record<string, OpenApiParameter>;
    requestBodies?: Record<string, OpenApiOperation['requestBody']>;
    securitySchemes?: Record<string, { type: string; scheme?: string; in?: string; name?: string }>;
  };
}

export interface ConsoleOperation {
  id: string;
  method: string;
  path: string;
  summary: string;
  tag: string;
  parameters: OpenApiParameter[];
  bodySchema?: OpenApiSchema;
  bodyExample?: unknown;
  /** The multipart/form-data body the operation takes (a file upload), if it describes one. */
  formSchema?: OpenApiSchema;
  /** Its success answer is bytes (a file download), not JSON. */
  binaryAnswer?: boolean;
  /** A collection read: the list helpers (page, sort, filter...) apply. */
  isList: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function resolveRef<T>(doc: OpenApiDocument, value: T & { $ref?: string }): T {
  let current: unknown = value;
  for (let depth = 0; depth < 10; depth++) {
    const ref = (current as { $ref?: string } | undefined)?.$ref;
    if (!ref || !ref.startsWith('#/')) break;
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], doc);
  }
  return (current ?? value) as T;
}

export function listOperations(doc: OpenApiDocument): ConsoleOperation[] {
  const operations: ConsoleOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const shared = ((item.parameters as OpenApiParameter[] | undefined) ?? []).map((p) => resolveRef(doc, p));
    for (const method of METHODS) {
      const op = item[method] as OpenApiOperation | undefined;
      if (!op) continue;
      const own = (op.parameters ?? []).map((p) => resolveRef(doc, p));
      const parameters = mergeParameters(shared, own);
      const body = op.requestBody ? resolveRef(doc, op.requestBody) : undefined;
      const media = body?.content?.['application/json'];
      const form = body?.content?.['multipart/form-data'];
      const isList = method === 'get' && parameters.some((p) => p.in === 'query' && (p.name === 'page' || p.name === 'limit'));
      operations.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        summary: op.summary ?? op.operationId ?? '',
        tag: op.tags?.[0] ?? path.split('/')[1] ?? '',
        parameters,
        bodySchema: media?.schema,
        bodyExample: media?.example,
        formSchema: form?.schema ? resolveRef(doc, form.schema) : undefined,
        binaryAnswer: answersBytes(doc, op),
        isList,
      });
    }
  }
  return withListColumnFilters(operations);
}

/** Whether the operation's success answer is described as bytes only (application/octet-stream, an image...), never JSON. */
function answersBytes(doc: OpenApiDocument, op: OpenApiOperation): boolean {
  const success = Object.entries(op.responses ?? {}).find(([status]) => status.startsWith('2'))?.[1];
  const types = Object.keys((success ? resolveRef(doc, success) : undefined)?.content ?? {});
  return types.length > 0 && types.every((t) => !/json/i.test(t) && !t.startsWith('text/'));
}

/**
 * The updates and deletes by filter take the list's filter[column]
 * parameters, which the document lists on GET only (its size): the
 * console offers them there too.
 */
function withListColumnFilters(operations: ConsoleOperation[]): ConsoleOperation[] {
  const isColumnFilter = (p: OpenApiParameter) => p.in === 'query' && p.name.startsWith('filter[');
  return operations.map((op) => {
    if ((op.method !== 'PATCH' && op.method !== 'DELETE') || op.path.includes('{') || op.parameters.some(isColumnFilter)) return op;
    const list = operations.find((o) => o.method === 'GET' && o.path === op.path);
    const borrowed = list?.parameters.filter(isColumnFilter) ?? [];
    return borrowed.length ? { ...op, parameters: mergeParameters(borrowed, op.parameters) } : op;
  });
}

function mergeParameters(shared: OpenApiParameter[], own: OpenApiParameter[]): OpenApiParameter[] {
  const key = (p: OpenApiParameter) => `${p.in}:${p.name}`;
  const ownKeys = new Set(own.map(key));
  return [...shared.filter((p) => !ownKeys.has(key(p))), ...own];
}

/** The table a path like `/posts` or `/posts/{id}` addresses, if any. */
export function tableOfPath(path: string): string | undefined {
  const match = /^\/([a-z][a-z0-9_]*)(?:\/\{[^}]+\})?$/.exec(path);
  return match && match[1] !== 'auth' ? match[1] : undefined;
}

/** Replaces `{name}` segments with the given values. */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_all, name: string) => encodeURIComponent(values[name] ?? ''));
}

export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].flatMap((m) => (m[1] === undefined ? [] : [m[1]]));
}

/** An example value for an OpenAPI schema, for bodies the project schema does not describe. */
export function exampleFromSchema(doc: OpenApiDocument, schema: OpenApiSchema | undefined, depth = 0): unknown {
  if (!schema || depth > 6) return undefined;
  const s = resolveRef(doc, schema);
  if (s.example !== undefined) return s.example;
  if (s.examples?.length) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (s.enum?.length) return s.enum[0];
  const parts = s.allOf ?? s.oneOf ?? s.anyOf;
  if (parts?.length) {
    const merged = parts.map((p) => exampleFromSchema(doc, p, depth + 1));
    if (s.allOf && merged.every((m) => m && typeof m === 'object')) return Object.assign({}, ...merged);
    return merged[0];
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        if (resolveRef(doc, prop).readOnly) continue;
        out[name] = exampleFromSchema(doc, prop, depth + 1);
      }
      return out;
    }
    case 'array':
      return [exampleFromSchema(doc, s.items, depth + 1)];
    case 'integer':
      return Math.min(Math.max(1, Math.ceil(s.minimum ?? -Infinity)), Math.floor(s.maximum ?? Infinity));
    case 'number':
      return Math.min(Math.max(1.5, s.minimum ?? -Infinity), s.maximum ?? Infinity);
    case 'boolean':
      return true;
    case 'string':
      if (s.format === 'email') return 'user@example.com';
      if (s.format === 'date-time') return '2025-01-01T12:00:00Z';
      if (s.format === 'date') return '2025-01-01';
      if (s.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
      if (s.format === 'uri') return 'https://example.com';
      if (s.format === 'password') return 'correct-horse-battery';
      if (s.pattern) return stringMatching(s.pattern, { minLength: s.minLength, maxLength: s.maxLength }) ?? '';
      return 'string'.padEnd(s.minLength ?? 0, 'x').slice(0, s.maxLength ?? Infinity);
    default:
      return s.properties ? exampleFromSchema(doc, { ...s, type: 'object' }, depth) : undefined;
  }
}

/** Names of the document's bearer (or API key) security schemes, for Authorize. */
export function bearerSchemeNames(doc: OpenApiDocument): string[] {
  return Object.entries(doc.components?.securitySchemes ?? {})
    .filter(([, scheme]) => (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer') || scheme.type === 'apiKey')
    .map(([name]) => name);
}

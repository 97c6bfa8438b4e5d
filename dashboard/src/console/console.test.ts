import { describe, expect, it } from 'vitest';
import { generatedUrl } from '../api/generated';
import { shellQuote } from './curl';
import { exampleAuthBody, exampleRecord } from './exampleRecord';
import { withEntry, HISTORY_LIMIT, type HistoryEntry } from './history';
import { emptyListHelpers, listQueryPairs } from './listQuery';
import { bearerSchemeNames, exampleFromSchema, fillPath, listOperations, tableOfPath, type OpenApiDocument } from './openapi';
import { nth } from '../lib/nth';

describe('list helpers', () => {
  it('turn page, sort, filters, search and include into the contract query', () => {
    const pairs = listQueryPairs({
      ...emptyListHelpers,
      page: 2,
      limit: 10,
      sort: [{ column: 'created_at', descending: true }, { column: 'title', descending: false }],
      filters: [
        { column: 'author_id', op: 'eq', value: '1' },
        { column: 'title', op: 'like', value: 'hello' },
        { column: '', op: 'eq', value: 'ignored' },
      ],
      search: '  tea ',
      include: ['author', 'comments.user'],
    });
    expect(pairs).toEqual([
      ['page', '2'],
      ['limit', '10'],
      ['sort', '-created_at,title'],
      ['filter[author_id]', '1'],
      ['filter[title][like]', 'hello'],
      ['search', 'tea'],
      ['include', 'author,comments.user'],
    ]);
  });

  it('send a filter expression as filter=', () => {
    expect(listQueryPairs({ ...emptyListHelpers, expression: "age >= 18 and name ~ 'ann'" })).toEqual([
      ['filter', "age >= 18 and name ~ 'ann'"],
    ]);
  });

  it('build a readable URL under /v1/<project>', () => {
    const url = generatedUrl('p1', '/posts', [
      ['filter[title][like]', 'a&b c'],
      ['include', 'author,tags'],
    ]);
    expect(url).toBe('/v1/p1/posts?filter[title][like]=a%26b%20c&include=author,tags');
  });
});

describe('curl', () => {
  it('quotes single quotes for the shell', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});

describe('history', () => {
  it('keeps the newest first and at most the limit', () => {
    const entry = (n: number): HistoryEntry => ({ at: String(n), operationId: 'GET /x', method: 'GET', path: '/x', url: '/x', status: 200, timeMs: n });
    let history: HistoryEntry[] = [];
    for (let i = 0; i < HISTORY_LIMIT + 5; i++) history = withEntry(history, entry(i));
    expect(history).toHaveLength(HISTORY_LIMIT);
    expect(history[0]?.at).toBe(String(HISTORY_LIMIT + 4));
  });
});

const openapi: OpenApiDocument = {
  openapi: '3.1.0',
  paths: {
    '/users': {
      get: { operationId: 'listUsers', tags: ['users'], parameters: [{ $ref: '#/components/parameters/page' } as never, { name: 'limit', in: 'query' }] },
      post: {
        summary: 'Create a user',
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/UserInput' } } } },
      },
    },
    '/users/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true }],
      get: { summary: 'Get a user' },
      delete: { summary: 'Delete a user' },
    },
  },
  components: {
    parameters: { page: { name: 'page', in: 'query' } },
    schemas: {
      UserInput: {
        type: 'object',
        properties: {
          id: { type: 'integer', readOnly: true },
          email: { type: 'string', format: 'email' },
          age: { type: ['integer', 'null'], minimum: 0 },
          role: { type: 'string', enum: ['admin', 'member'] },
        },
      },
    },
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' }, basic: { type: 'http', scheme: 'basic' } },
  },
};

describe('OpenAPI document', () => {
  it('lists operations with resolved and shared parameters', () => {
    const ops = listOperations(openapi);
    expect(ops.map((o) => o.id)).toEqual(['GET /users', 'POST /users', 'GET /users/{id}', 'DELETE /users/{id}']);
    expect(ops[0]?.isList).toBe(true);
    expect(ops[0]?.parameters.map((p) => p.name)).toEqual(['page', 'limit']);
    expect(ops[2]?.parameters.map((p) => p.name)).toEqual(['id']);
    expect(ops[2]?.isList).toBe(false);
  });

  it('builds an example body from a referenced schema, skipping read-only fields', () => {
    const post = nth(listOperations(openapi), 1);
    expect(exampleFromSchema(openapi, post.bodySchema)).toEqual({ email: 'user@example.com', age: 1, role: 'admin' });
  });

  it('names the bearer schemes for Authorize', () => {
    expect(bearerSchemeNames(openapi)).toEqual(['bearerAuth']);
  });

  it('finds the table of a path and fills path parameters', () => {
    expect(tableOfPath('/posts')).toBe('posts');
    expect(tableOfPath('/posts/{id}')).toBe('posts');
    expect(tableOfPath('/auth/login')).toBeUndefined();
    expect(fillPath('/posts/{id}', { id: 'a b' })).toBe('/posts/a%20b');
  });
});

describe('example records', () => {
  const users = {
    name: 'users',
    auth: true,
    columns: [
      { name: 'email', type: 'email', required: true },
      { name: 'name', type: 'text', max_length: 5 },
      { name: 'password_hash', type: 'password' },
      { name: 'age', type: 'integer', min: 40 },
      { name: 'is_active', type: 'boolean', default: false },
      { name: 'role', type: 'enum', values: ['member', 'admin'] },
    ],
  };

  it('fills every column by its body field name, within its constraints', () => {
    expect(exampleRecord(users)).toEqual({
      email: 'user1@example.com',
      name: 'Examp',
      password: 'correct-horse-battery',
      age: 40,
      is_active: false,
      role: 'member',
    });
  });

  it('references get the id of an existing record and auth bodies use the auth table', () => {
    const posts = { name: 'posts', columns: [{ name: 'author_id', type: 'integer', references: { table: 'users' } }] };
    expect(exampleRecord(posts, 0, { users: 7 })).toEqual({ author_id: 7 });
    // Nothing to point at: an optional reference is left out rather than invented.
    expect(exampleRecord(posts)).toEqual({});
    expect(exampleAuthBody({ tables: [users] }, 'login')).toEqual({ email: 'user1@example.com', password: 'correct-horse-battery' });
    expect(exampleAuthBody({ tables: [] }, 'login')).toBeUndefined();
  });
});

describe('example bodies for operations', () => {
  const schema = {
    tables: [
      { name: 'users', auth: true, columns: [{ name: 'email', type: 'email' }, { name: 'password_hash', type: 'password' }, { name: 'name', type: 'text' }] },
    ],
  };
  const op = (method: string, path: string) => ({ id: `${method} ${path}`, method, path, summary: '', tag: '', parameters: [], isList: false });

  it('a create gets every column, a patch one, a read none', async () => {
    const { exampleBody } = await import('./exampleBody');
    expect(JSON.parse(exampleBody(op('POST', '/users'), schema, openapi))).toEqual({
      email: 'user1@example.com',
      password: 'correct-horse-battery',
      name: 'Example name',
    });
    expect(JSON.parse(exampleBody(op('PATCH', '/users/{id}'), schema, openapi))).toEqual({ email: 'user1@example.com' });
    expect(exampleBody(op('GET', '/users'), schema, openapi)).toBe('');
    expect(JSON.parse(exampleBody(op('POST', '/auth/login'), schema, openapi))).toEqual({
      email: 'user1@example.com',
      password: 'correct-horse-battery',
    });
  });

  it('the routes of mailed links get their own bodies', async () => {
    const { exampleBody } = await import('./exampleBody');
    expect(JSON.parse(exampleBody(op('POST', '/auth/password-reset'), schema, openapi))).toEqual({ email: 'user1@example.com' });
    expect(JSON.parse(exampleBody(op('POST', '/auth/password-reset/confirm'), schema, openapi))).toEqual({ token: '', password: 'a-new-password' });
    expect(JSON.parse(exampleBody(op('POST', '/auth/email-change/confirm'), schema, openapi))).toEqual({ token: '' });
    expect(JSON.parse(exampleBody(op('POST', '/auth/email-change'), schema, openapi))).toEqual({ new_email: 'new.address@example.com' });
  });
});

describe('console requests', () => {
  it('fill path values and combine helpers with the remaining query parameters', async () => {
    const { newConsoleRequest, requestPath, requestQuery, extraQueryParameters } = await import('./consoleRequest');
    const operations = listOperations({
      ...openapi,
      paths: {
        ...openapi.paths,
        '/users': { ...openapi.paths['/users'], get: { parameters: [{ name: 'page', in: 'query' }, { name: 'count', in: 'query' }] } },
      },
    });
    const list = nth(operations, 0);
    const one = nth(operations, 2);
    expect(extraQueryParameters(list)).toEqual(['count']);
    const request = {
      ...newConsoleRequest(list.id),
      helpers: { ...emptyListHelpers, filters: [{ column: 'email', op: 'like' as const, value: 'ann' }], include: ['posts'] },
      extra: { count: 'exact' },
    };
    expect(requestQuery(list, request)).toEqual([
      ['filter[email][like]', 'ann'],
      ['include', 'posts'],
      ['count', 'exact'],
    ]);
    expect(requestPath(one, { ...newConsoleRequest(one.id), pathValues: { id: '7' } })).toBe('/users/7');
  });
});

describe('operations of the document', () => {
  it('give the updates and deletes by filter the column filters the document lists on GET', () => {
    const filterParam = { name: 'filter[title]', in: 'query' as const, schema: { type: 'string' } };
    const doc: OpenApiDocument = {
      paths: {
        '/books': {
          get: { parameters: [{ name: 'page', in: 'query' }, filterParam, { name: 'filter', in: 'query' }] },
          post: {},
          patch: { parameters: [{ name: 'filter', in: 'query' }, { name: 'max_affected', in: 'query' }] },
          delete: { parameters: [{ name: 'filter', in: 'query' }] },
        },
      },
    };
    const byId = new Map(listOperations(doc).map((o) => [o.id, o.parameters.map((p) => p.name)]));
    expect(byId.get('PATCH /books')).toEqual(['filter[title]', 'filter', 'max_affected']);
    expect(byId.get('DELETE /books')).toEqual(['filter[title]', 'filter']);
    expect(byId.get('POST /books')).toEqual([]);
  });
});

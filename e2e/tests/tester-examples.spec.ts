// Issue 20 item 3: the Test page's prefilled create bodies pass the
// server's validation. A project whose tables cover every column type and
// every constraint (bounds, lengths, patterns, enum, formats, unique,
// references, a uuid-keyed table, an auth table with a password) is
// generated, and for every table the create is sent with the example as
// it is prefilled: each must answer 201. Sending it a second time checks
// that unique columns get fresh values with a fresh example.
import { expect, test, type Page } from '@playwright/test';
import { checkPage, sessionToken, signUpWithProject } from './support';

const schema = {
  tables: [
    {
      name: 'members',
      auth: true,
      columns: [
        { name: 'email', type: 'email', required: true, unique: true },
        { name: 'password_hash', type: 'password', required: true, min_length: 12 },
        { name: 'nickname', type: 'text', min_length: 3, max_length: 12, unique: true },
      ],
    },
    {
      name: 'authors',
      columns: [
        { name: 'name', type: 'text', required: true, min_length: 2, max_length: 40, searchable: true },
        { name: 'email', type: 'email', required: true, unique: true },
        { name: 'website', type: 'url' },
        { name: 'born', type: 'date' },
        { name: 'rating', type: 'decimal', min: 0, max: 5 },
        { name: 'score', type: 'number', min: -1, max: 1 },
        { name: 'age', type: 'integer', min: 18, max: 120, required: true },
        { name: 'active', type: 'boolean', default: true },
        { name: 'status', type: 'enum', values: ['draft', 'live'], required: true },
        { name: 'meta', type: 'json' },
        { name: 'token', type: 'uuid', unique: true },
        { name: 'last_seen', type: 'timestamp' },
        { name: 'code', type: 'text', pattern: '^[A-Z]{3}-\\d{4}$', unique: true, required: true },
      ],
    },
    {
      name: 'editors',
      id_type: 'uuid',
      columns: [
        { name: 'handle', type: 'text', pattern: '^@[a-z0-9_]{3,15}$', unique: true, required: true },
        { name: 'contact', type: 'email', pattern: '@acme\\.org$', required: true },
        { name: 'homepage', type: 'url', pattern: '^https://github\\.com/' },
        { name: 'initials', type: 'text', min_length: 2, max_length: 3, pattern: '^[A-Z]+$' },
        { name: 'level', type: 'integer', min: 1.5, max: 3.5 },
        { name: 'badge', type: 'integer', min: 100, unique: true },
      ],
    },
    {
      name: 'books',
      columns: [
        { name: 'title', type: 'text', required: true },
        { name: 'isbn', type: 'text', pattern: '^97[89]-\\d{10}$', unique: true, required: true },
        { name: 'price', type: 'decimal', min: 0.5, max: 5, required: true },
        { name: 'author_id', type: 'integer', required: true, references: { table: 'authors', on_delete: 'cascade' } },
        { name: 'editor_id', type: 'uuid', references: { table: 'editors', on_delete: 'set_null' } },
        { name: 'pages', type: 'integer', min: 1, unique: true },
        { name: 'published_on', type: 'date', unique: true },
        { name: 'summary', type: 'text', max_length: 10, unique: true },
      ],
    },
    {
      name: 'reviews',
      columns: [
        { name: 'book_id', type: 'integer', required: true, references: { table: 'books', on_delete: 'cascade' } },
        { name: 'stars', type: 'integer', min: 1, max: 5, required: true },
        { name: 'weight', type: 'number', max: -0.5 },
        { name: 'at', type: 'timestamp', unique: true },
        { name: 'tag', type: 'enum', values: ['good', 'bad', 'ugly'] },
      ],
    },
  ],
};

test('every table is created from its prefilled example', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const projectId = await signUpWithProject(page, 'Every constraint');

  await test.step('save and generate a schema with every type and constraint', async () => {
    const token = await sessionToken(page);
    const saved = await page.request.put(`/api/projects/${projectId}/schema`, { headers: { Authorization: `Bearer ${token}` }, data: schema });
    expect(saved.status(), await saved.text()).toBe(200);
    const meta = ((await saved.json()) as { meta: { valid: boolean; problems?: Record<string, string> } }).meta;
    expect(meta.problems ?? {}, 'the schema is valid').toEqual({});
    await page.goto(`/projects/${projectId}/generate`);
    await page.getByRole('button', { name: 'Generate API' }).click();
    await expect(page.getByText('Version 1 is live')).toBeVisible({ timeout: 60_000 });
  });

  await test.step('create a key on the Test page', async () => {
    await page.goto(`/projects/${projectId}/test`);
    await page.getByRole('button', { name: 'Create a key' }).click();
    await expect(page.getByLabel('Send with key')).toBeVisible();
  });

  // Parents first: a reference's example is the id of an existing row.
  for (const table of schema.tables) {
    await test.step(`POST /${table.name} with its example answers 201`, async () => {
      await page.getByLabel('Operation').selectOption(`POST /${table.name}`);
      const first = await exampleBody(page);
      await page.getByRole('button', { name: 'Send' }).click();
      await expectCreated(page, table.name);
      const created = await page.getByTestId('response-body').innerText();
      // A second, fresh example: unique columns do not collide.
      await page.getByRole('button', { name: 'Reset to example' }).click();
      await expect.poll(() => exampleBody(page), 'a fresh example').not.toEqual(first);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(page.getByTestId('response-body')).not.toHaveText(created);
      await expectCreated(page, table.name);
    });
  }

  await test.step('the examples follow the constraints the issue names', async () => {
    await page.getByLabel('Operation').selectOption('POST /books');
    const body = await exampleBody(page);
    expect(Number(body.price)).toBeLessThanOrEqual(5);
    expect(typeof body.price, 'a decimal is sent as a string').toBe('string');
    expect(body.isbn).toMatch(/^97[89]-\d{10}$/);
    expect(typeof body.author_id).toBe('number');
    await checkPage(page, 'tester-examples-books');
  });
});

test('a required reference to an empty table is left to the user with a hint', async ({ page }) => {
  const projectId = await signUpWithProject(page, 'Empty parent');
  const token = await sessionToken(page);
  const minimal = { tables: [schema.tables[1]!, { name: 'notes', columns: [{ name: 'author_id', type: 'integer', required: true, references: { table: 'authors' } }] }] };
  await page.request.put(`/api/projects/${projectId}/schema`, { headers: { Authorization: `Bearer ${token}` }, data: minimal });
  await page.request.post(`/api/projects/${projectId}/generate`, { headers: { Authorization: `Bearer ${token}` }, data: {} });
  await page.goto(`/projects/${projectId}/test`);
  await page.getByRole('button', { name: 'Create a key' }).click();
  await page.getByLabel('Operation').selectOption('POST /notes');
  const hints = page.getByTestId('example-hints');
  await expect(hints).toContainText('author_id');
  await expect(hints).toContainText('authors has no records yet');
});

/** The prefilled body, once it is complete (references arrive with their ids; until then they are null). */
async function exampleBody(page: Page): Promise<Record<string, unknown>> {
  const editor = page.locator('[data-testid=request-body] .cm-content');
  await expect(page.getByTestId('example-hints')).toHaveCount(0);
  await expect(editor).not.toContainText('null');
  await expect(editor).toContainText('}');
  return JSON.parse(await editor.innerText()) as Record<string, unknown>;
}

async function expectCreated(page: Page, table: string) {
  const status = page.getByTestId('response-status');
  await expect(status).toBeVisible();
  const answer = (await page.getByTestId('response-body').innerText()).slice(0, 600);
  await expect(status, `POST /${table} answered: ${answer}`).toContainText('201');
}

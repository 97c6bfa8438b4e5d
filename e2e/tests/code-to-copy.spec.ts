// Code to copy (issue 37, item 2): the Generate success page lists every
// endpoint the API has, with copy buttons for the base URL, the project id
// and each URL; the Test page and API Docs write each request as curl,
// fetch, Python and Go with the chosen credential, never the dashboard
// session; and the curl copied from the page runs against the server.
// Screenshots at 1440x900 and 390x844 (e2e/artifacts/code-*.png), axe on each.
import { expect, test, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { baseURL } from '../playwright.config';
import { checkPage, createApiProject } from './support';

const wide = { width: 1440, height: 900 };
const narrow = { width: 390, height: 844 };

const schema = {
  tables: [
    {
      name: 'readers',
      auth: true,
      columns: [
        { name: 'email', type: 'email', required: true, unique: true },
        { name: 'password_hash', type: 'password', required: true },
      ],
    },
    {
      name: 'books',
      realtime: true,
      columns: [
        { name: 'title', type: 'text', required: true },
        { name: 'published_year', type: 'integer', min: 1450, max: 2100 },
      ],
    },
  ],
};

/**
 * What is on the clipboard now. A copy button writes asynchronously, so a
 * read straight after its click can still see the previous copy on a loaded
 * machine: the checks poll (expect.poll, or copied below).
 */
async function clipboard(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

/** What the copy button put on the clipboard, once it holds `expected`. */
async function copied(page: Page, expected: string): Promise<string> {
  await expect.poll(() => clipboard(page)).toContain(expected);
  return clipboard(page);
}

/** Runs a copied curl command in bash and returns the HTTP status it got (the answer's body goes to `body`). */
function runCurl(command: string, env: Record<string, string> = {}): { status: string; body: string } {
  const out = execFileSync('bash', ['-c', `${command} -s -w '\\n%{http_code}'`], { encoding: 'utf8', env: { ...process.env, ...env } });
  const at = out.lastIndexOf('\n');
  return { status: out.slice(at + 1), body: out.slice(0, at) };
}

test('every endpoint after generate, code in four languages, and a copied curl that runs', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL });
  const p = await createApiProject(request, 'Code to copy', schema);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  await page.setViewportSize(wide);
  // The key as the dashboard remembers one it made: under the server's id.
  const keys = (await (await request.get(`/api/projects/${p.projectId}/keys`, { headers: { Authorization: `Bearer ${p.session}` } })).json()) as {
    data: { id: string; name: string; prefix: string }[];
  };
  const keyId = keys.data[0]!.id;
  await page.goto('/login');
  await page.evaluate(({ session, projectId, key, keyId }) => {
    localStorage.setItem('tablesmith.session', session);
    localStorage.setItem(`tablesmith.keys.${projectId}`, JSON.stringify([{ id: keyId, name: 'e2e', secret: key, scope: 'read_write' }]));
  }, { ...p, keyId });

  await test.step('the Generate success page lists every endpoint of the API description', async () => {
    // A pending change, so that there is something to generate.
    const auth = { Authorization: `Bearer ${p.session}` };
    const books = schema.tables[1]!;
    const next = { tables: [schema.tables[0], { ...books, columns: [...books.columns, { name: 'blurb', type: 'text' }] }] };
    expect((await request.put(`/api/projects/${p.projectId}/schema`, { headers: auth, data: next })).status()).toBe(200);
    await page.goto(`/projects/${p.projectId}/generate`);
    await page.getByRole('button', { name: 'Generate API' }).click();
    await expect(page.getByText('Version 2 is live')).toBeVisible({ timeout: 60_000 });

    const doc = (await (await request.get(`/v1/${p.projectId}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const described = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    const table = page.getByRole('table', { name: /Endpoints/ });
    const rows = table.locator('tbody tr');
    // Every operation of the description, plus the description and its docs page.
    await expect(rows).toHaveCount(described.length + 2);
    for (const wanted of ['PATCH /books', 'DELETE /books', 'GET /books/aggregate', 'GET /realtime', 'POST /auth/login', 'PUT /books/{id}']) {
      expect(described, `the API description has ${wanted}`).toContain(wanted);
      const [method, path] = wanted.split(' ');
      await expect(rows.filter({ hasText: new RegExp(`^${method}`) }).filter({ has: page.getByText(path!, { exact: true }) }), wanted).toHaveCount(1);
    }
    await expect(table).toContainText('Update the records of books that match a filter');

    await page.getByRole('button', { name: 'Copy base URL' }).click();
    await expect.poll(() => clipboard(page)).toBe(`${baseURL}/v1/${p.projectId}`);
    await page.getByRole('button', { name: 'Copy project id' }).click();
    await expect.poll(() => clipboard(page)).toBe(p.projectId);
    await page.getByRole('button', { name: 'Copy URL of GET /books/aggregate' }).click();
    await expect.poll(() => clipboard(page)).toBe(`${baseURL}/v1/${p.projectId}/books/aggregate`);
    await checkPage(page, 'code-01-generate-endpoints-1440');
    await page.setViewportSize(narrow);
    await checkPage(page, 'code-02-generate-endpoints-390');
    await page.setViewportSize(wide);
  });

  await test.step('Settings copies the project id, the base URL and a key this browser holds', async () => {
    await page.goto(`/projects/${p.projectId}/settings`);
    await page.getByRole('button', { name: 'Copy project id' }).click();
    await expect.poll(() => clipboard(page)).toBe(p.projectId);
    await page.getByRole('button', { name: 'Copy base URL' }).click();
    await copied(page, `/v1/${p.projectId}`);
    await page.getByRole('button', { name: 'Copy key e2e' }).click();
    await expect.poll(() => clipboard(page)).toBe(p.key);
  });

  await test.step('with the session chosen, the Test page writes $TABLESMITH_KEY, and the copied curl runs with it', async () => {
    await page.goto(`/projects/${p.projectId}/test?op=${encodeURIComponent('POST /books')}`);
    await expect(page.getByLabel('Send with key')).toHaveValue('dashboard-session');
    const code = page.getByTestId('code-sample');
    await expect(code).toContainText('$TABLESMITH_KEY');
    await expect(page.getByTestId('key-variable-note')).toBeVisible();
    for (const language of ['JavaScript (fetch)', 'Python (requests)', 'Go (net/http)', 'curl']) {
      await page.getByTestId('code-samples').getByText(language, { exact: true }).click();
      await expect(code).toContainText('TABLESMITH_KEY');
      expect(await code.innerText(), `${language} holds no session token`).not.toContain(p.session);
    }
    await page.getByRole('button', { name: 'Copy curl' }).click();
    const curl = await copied(page, `${baseURL}/v1/${p.projectId}/books`);
    expect(curl).not.toContain(p.session);
    const created = runCurl(curl, { TABLESMITH_KEY: p.key });
    expect(created.status, created.body).toBe('201');
    expect((JSON.parse(created.body) as { data: { title: string } }).data.title).toBeTruthy();
    await checkPage(page, 'code-03-test-session-1440');
  });

  await test.step('with a key chosen, the copied curl of a list with a query runs as it is', async () => {
    await page.getByLabel('Operation').selectOption('GET /books');
    await page.getByLabel('Send with key').selectOption(keyId);
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 1 column').selectOption('published_year');
    await page.getByLabel('Filter 1 value').fill('1998');
    await expect(page.getByTestId('request-url')).toContainText('filter[published_year]=1998');
    const code = page.getByTestId('code-sample');
    await expect(code).toContainText(p.key);
    await page.getByRole('button', { name: 'Copy curl' }).click();
    const curl = await copied(page, 'filter[published_year]=1998');
    const listed = runCurl(curl);
    expect(listed.status, listed.body).toBe('200');
    expect((JSON.parse(listed.body) as { success: boolean }).success).toBe(true);
    await page.setViewportSize(narrow);
    await checkPage(page, 'code-04-test-key-390');
    await page.setViewportSize(wide);
  });

  await test.step('API Docs offers the same code per operation', async () => {
    await page.goto(`/projects/${p.projectId}/docs`);
    const section = page.getByRole('region', { name: 'Code to copy' });
    await section.getByLabel('Operation').selectOption('GET /books/{id}');
    await section.getByText('Python (requests)', { exact: true }).click();
    const code = section.getByTestId('code-sample');
    await expect(code).toContainText(`requests.get(`);
    await expect(code).toContainText(`"${baseURL}/v1/${p.projectId}/books/1"`);

    // Swagger UI's own curl after Execute: with the session chosen, the
    // request carries it but the command shows $TABLESMITH_KEY.
    await page.getByLabel('Authorize with').selectOption('dashboard-session');
    const swagger = page.getByTestId('swagger');
    const list = swagger.locator('.opblock-get').filter({ has: page.locator('[data-path="/books"]') }).first();
    await expect(list).toBeVisible({ timeout: 60_000 });
    await list.locator('.opblock-summary').click();
    // Execute starts a fetch, never a navigation: waiting for "scheduled
    // navigations" after it timed out in a renderer starved beside the Go
    // tests (CI); the answer shown is awaited below.
    await list.getByRole('button', { name: 'Execute' }).click({ noWaitAfter: true });
    await expect(list.locator('.live-responses-table tbody .response-col_status').first()).toHaveText('200', { timeout: 30_000 });
    const curl = list.locator('.curl-command');
    await expect(curl).toContainText('Bearer $TABLESMITH_KEY');
    expect(await curl.innerText(), 'the session is not in the curl command').not.toContain(p.session);
    await checkPage(page, 'code-05-docs-1440');
    await page.setViewportSize(narrow);
    await checkPage(page, 'code-06-docs-390');
  });
  await request.dispose();
});

// Issue 37 item 6, "the rest of the list": each rough edge with an
// assertion that fails if it comes back, at 1440x900 and 390x844, with a
// screenshot (e2e/artifacts/rough37-*.png) and axe on each page. The
// server-side ones have Go tests: realtime lifetimes out of latency and
// error rate (internal/analytics), generate's answer without every
// statement (internal/platformhttp), placeholders in code spans and filter
// parameters only where they apply (openapi).
import { expect, test, type Locator, type Page } from '@playwright/test';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseURL } from '../playwright.config';
import { type ApiProject, checkPage, createApiProject, openSection, setPlan } from './support';

const wide = { width: 1440, height: 900 };
const narrow = { width: 390, height: 844 };

const schema = {
  tables: [
    { name: 'authors', columns: [{ name: 'name', type: 'text', required: true }] },
    {
      name: 'books',
      realtime: true,
      columns: [
        { name: 'title', type: 'text', required: true },
        { name: 'published_year', type: 'integer' },
        { name: 'author_id', type: 'integer', references: { table: 'authors', on_delete: 'cascade' } },
      ],
    },
    { name: 'covers', columns: [{ name: 'book_id', type: 'integer', unique: true, references: { table: 'books', on_delete: 'cascade' } }] },
  ],
};

/** A draft of nine tables: too many to fit the diagram pane at full size. */
const wideDraft = {
  tables: [
    ...schema.tables,
    ...['shelves', 'loans', 'members', 'reviews', 'tags', 'events'].map((name) => ({
      name,
      columns: [
        { name: 'label', type: 'text' },
        { name: 'book_id', type: 'integer', references: { table: 'books', on_delete: 'set_null' } },
      ],
    })),
  ],
};

async function signIn(page: Page, p: ApiProject, path: string) {
  await page.goto('/login');
  await page.evaluate((session) => localStorage.setItem('tablesmith.session', session), p.session);
  await page.goto(path);
}

function overlap(a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function expectWhole(locator: Locator, what: string) {
  expect(await locator.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), `${what} is shown whole`).toBe(true);
}

test('issue 37, the rest of the list', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL });
  const p = await createApiProject(request, 'Rough edges 37', schema);
  const api = { Authorization: `Bearer ${p.key}` };
  const author = await request.post(`/v1/${p.projectId}/authors`, { headers: api, data: { name: 'Ada' } });
  expect(author.status()).toBe(201);
  await page.setViewportSize(wide);
  const consoleMessages: string[] = [];
  page.on('console', (message) => consoleMessages.push(`${message.type()}: ${message.text()}`));

  await test.step('API Docs: placeholders show, no JsonSchema_ warning, POST lists no filter parameter', async () => {
    await signIn(page, p, `/projects/${p.projectId}/docs`);
    const swagger = page.getByTestId('swagger');
    const operation = (method: string, path = '/books') =>
      swagger.locator(`.opblock-${method}`).filter({ has: page.locator(`[data-path="${path}"]`) }).first();
    const list = operation('get');
    // Swagger UI takes a while to lay out nine tables' operations on a busy machine.
    await expect(list).toBeVisible({ timeout: 60_000 });
    await list.locator('.opblock-summary').click({ timeout: 60_000 });
    // The list's parameters include array ones with formatted items (filter[id][in]: int64).
    await expect(list.locator('.parameters')).toContainText('filter[id][in]');
    const create = operation('post');
    await create.locator('.opblock-summary').click();
    await expect(create.locator('.parameters-container')).not.toContainText('filter[');
    // A placeholder in angle brackets shows as text, not swallowed as a tag:
    // the bulk create's refusals are keyed <position>.<field>.
    const bulk = operation('post', '/books/bulk');
    await bulk.locator('.opblock-summary').click();
    await expect(bulk).toContainText('<position>.<field>');
    expect(consoleMessages.filter((m) => m.includes('JsonSchema_')), 'no JsonSchema_ component warnings').toEqual([]);
    await checkPage(page, 'rough37-01-docs-1440');
  });

  await test.step('every page opens at its top', async () => {
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    expect(await page.evaluate(() => window.scrollY), 'the docs page scrolled').toBeGreaterThan(200);
    await openSection(page, 'Settings');
    await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
  });

  await test.step('a toast covers neither the account menu nor the page header', async () => {
    await page.getByLabel('Project name').fill('Rough edges 37, renamed');
    await page.getByRole('button', { name: 'Rename' }).click();
    const toast = page.locator('.mantine-Notification-root').filter({ hasText: 'Project renamed' });
    await expect(toast).toBeVisible();
    const menu = (await page.getByRole('button', { name: /Account menu/ }).boundingBox())!;
    const box = (await toast.boundingBox())!;
    expect(overlap(menu, box), 'the toast leaves the account menu visible').toBe(false);
    const title = (await page.getByRole('heading', { name: 'Settings' }).boundingBox())!;
    expect(box.y, 'the toast opens below the page header').toBeGreaterThan(title.y + title.height);
    await checkPage(page, 'rough37-02-toast-1440');
  });

  await test.step('the Test page: a plausible year, and no filter parameters on a create', async () => {
    await openSection(page, 'Test');
    await page.getByLabel('Operation').selectOption('POST /books');
    const body = await page.getByTestId('request-body').innerText();
    const year = Number(/"published_year": (\d+)/.exec(body)?.[1]);
    expect(year, `the example year in ${body}`).toBeGreaterThanOrEqual(1900);
    expect(year).toBeLessThanOrEqual(2100);
    await expect(page.getByRole('button', { name: /column filter parameters/ })).toHaveCount(0);
    await expect(page.getByRole('textbox', { name: 'filter (query)' })).toHaveCount(0);
    // The update by filter still offers the list's column filters.
    await page.getByLabel('Operation').selectOption('PATCH /books');
    await expect(page.getByRole('button', { name: /Show \d+ column filter parameters/ })).toBeVisible();
  });

  await test.step('"1 record", not "1 records"', async () => {
    await openSection(page, 'Data');
    await page.getByRole('tab', { name: 'authors' }).click();
    await expect(page.getByText('1 record', { exact: true })).toBeVisible();
    await expect(page.getByText(/\b1 records\b/)).toHaveCount(0);
  });

  await test.step('the analytics latency chart leaves room for its labels', async () => {
    for (let i = 0; i < 3; i++) await request.get(`/v1/${p.projectId}/books`, { headers: api });
    await openSection(page, 'Analytics');
    const plots = page.locator('.u-over');
    await expect(plots.first()).toBeVisible({ timeout: 30_000 });
    // uPlot draws the labels on a canvas; the plot starts right of the y axis it sized for them.
    for (const plot of await plots.all()) expect(parseFloat(await plot.evaluate((el) => getComputedStyle(el).left))).toBeGreaterThanOrEqual(40);
    await checkPage(page, 'rough37-03-analytics-1440');
    await page.setViewportSize(narrow);
    await checkPage(page, 'rough37-04-analytics-390');
    await page.setViewportSize(wide);
  });

  await test.step('the builder: one badge, a wider panel, a readable diagram with cardinality', async () => {
    await openSection(page, 'Schema');
    await expect(page.getByText('Published', { exact: true })).toBeVisible();
    await expect(page.getByText('Saved', { exact: true })).toHaveCount(0);
    const saved = await request.put(`/api/projects/${p.projectId}/schema`, { headers: { Authorization: `Bearer ${p.session}` }, data: wideDraft });
    expect(saved.status()).toBe(200);
    await page.reload();
    await expect(page.getByText('Saved, not generated yet', { exact: true })).toBeVisible();
    await expect(page.getByText('Saved', { exact: true })).toHaveCount(0);
    await page.getByTestId('table-node-books').click();
    const pane = page.getByRole('region', { name: 'Table editor' });
    expect((await pane.boundingBox())!.width, 'the editor pane').toBeGreaterThanOrEqual(560);
    const notes = page.getByRole('region', { name: 'System columns' }).locator('p');
    for (const note of await notes.all()) await expectWhole(note, `the system column note "${await note.innerText()}"`);
    // Nine tables open at a zoom whose names can be read.
    const scale = await page.locator('.react-flow__viewport').evaluate((el) => new DOMMatrixReadOnly(getComputedStyle(el).transform).a);
    expect(scale, 'the diagram zoom').toBeGreaterThanOrEqual(0.6);
    const labels = page.locator('.react-flow__edge-text');
    await expect(labels.filter({ hasText: /^n:1/ })).toHaveCount(7);
    await expect(labels.filter({ hasText: /^1:1/ })).toHaveCount(1);
    await expect(page.locator('.react-flow__edge-path[marker-start*="er-many"]')).toHaveCount(7);
    await checkPage(page, 'rough37-05-builder-1440');
    await page.setViewportSize(narrow);
    await checkPage(page, 'rough37-06-builder-390');
    await page.setViewportSize(wide);
  });

  await test.step('"New project" off says why', async () => {
    test.skip(!setPlan(p.email, 'free'), 'needs scripts/e2e.sh (caddy tablesmith set-plan)');
    await page.goto('/projects');
    const button = page.getByRole('button', { name: 'New project' });
    await expect(button).toBeDisabled();
    await expect(button).toHaveAccessibleDescription(/free plan allows 1 project\. Delete one or move to another plan/);
    await expect(page.getByText('1 of 1 project used')).toBeVisible();
    await checkPage(page, 'rough37-07-projects-1440');
    await page.setViewportSize(narrow);
    await checkPage(page, 'rough37-08-projects-390');
  });
  await request.dispose();
});

test("README's walkthrough runs whole as written, the file of step 8 included", () => {
  const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'README.md'), 'utf8');
  const walkthrough = /## Walkthrough with curl[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(walkthrough, 'the walkthrough block').toBeTruthy();
  const script = walkthrough!
    .replace('B=http://localhost:8080', `B=${baseURL}`)
    .replace('you@example.com', `readme.whole.${Date.now()}@example.com`);
  // In a directory of its own: step 8 writes resume.txt.
  const out = execFileSync('bash', ['-c', script], { encoding: 'utf8', cwd: mkdtempSync(join(tmpdir(), 'readme-')) });
  expect(out).toContain('"code":"VALIDATION_ERROR"');
  expect(out, 'the file step 8 attached comes back').toContain('John Doe: ten years of curl');
  expect(out).toContain('"message":"Record deleted successfully"');
});

test("README's step 6 runs in a second terminal that has none of the walkthrough's variables", async ({ request }) => {
  const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'README.md'), 'utf8');
  const walkthrough = /## Walkthrough with curl[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(walkthrough, 'the walkthrough block').toBeTruthy();
  // Steps 1 to 5, against this server and with an e-mail of its own.
  const upToStep6 = walkthrough!
    .split('# 6.')[0]!
    .replace('B=http://localhost:8080', `B=${baseURL}`)
    .replace('you@example.com', `readme.${Date.now()}@example.com`);
  const printed = execFileSync('bash', ['-c', upToStep6], { encoding: 'utf8' }).trim().split('\n').pop()!;
  expect(printed).toMatch(/^curl -N '.+\/realtime\?tables=users' -H 'Authorization: Bearer ts_/);

  // The second terminal: a clean environment, the line as printed.
  const stream = spawn('env', ['-i', `PATH=${process.env.PATH}`, 'bash', '-c', `${printed} --max-time 20`]);
  let received = '';
  stream.stdout.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const project = /\/v1\/([^/]+)\/realtime/.exec(printed)![1];
  const key = /Bearer (ts_[^']+)/.exec(printed)![1];
  await expect.poll(() => received, { timeout: 15_000 }).toContain('connected');
  const created = await request.post(`/v1/${project}/users`, {
    headers: { Authorization: `Bearer ${key}` },
    data: { email: 'john@example.com', name: 'John Doe', password: 'securepassword123' },
  });
  expect(created.status()).toBe(201);
  await expect.poll(() => received, { timeout: 15_000 }).toContain('event: create');
  stream.kill();
});

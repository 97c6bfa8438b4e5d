// Realtime everywhere a user looks (issue 21 items 7 and 8): a page on
// another origin follows the stream with EventSource and ?access_token=;
// the Data page of a realtime table shows a row created through the API
// without a reload; the Test page opens the stream and lists its events.
// Rows are always created through the generated API by the test itself,
// as another client would.
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { baseURL } from '../playwright.config';
import { checkPage, createApiProject, snapshot, type ApiProject } from './support';

const schema = {
  tables: [
    { name: 'notes', realtime: true, columns: [{ name: 'title', type: 'text', required: true }, { name: 'stars', type: 'integer' }] },
    { name: 'drafts', columns: [{ name: 'body', type: 'text' }] },
  ],
};

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

test.use({ viewport: DESKTOP });

/** Serves one blank page on another port of 127.0.0.1: another origin. */
async function startOrigin(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><head><title>Another app</title></head><body><main><h1>Another app</h1><pre id="out">…</pre></main></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function createNote(request: APIRequestContext, p: ApiProject, data: Record<string, unknown>): Promise<number> {
  const response = await request.post(`/v1/${p.projectId}/notes`, { headers: { Authorization: `Bearer ${p.key}` }, data });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { data: { id: number } }).data.id;
}

/** Signs the page in as the project's owner, with the project's key remembered (as the Data page does after making one). */
async function signIn(page: Page, p: ApiProject): Promise<void> {
  await page.goto('/login');
  await page.evaluate(({ p }) => {
    localStorage.setItem('tablesmith.session', p.session);
    localStorage.setItem(`tablesmith.keys.${p.projectId}`, JSON.stringify([{ id: 'rt-key', name: 'realtime', secret: p.key, scope: 'read_write' }]));
    localStorage.setItem(`tablesmith.selected-key.${p.projectId}`, 'rt-key');
  }, { p });
}

test('a page on another origin follows the stream with EventSource and ?access_token=', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL });
  const p = await createApiProject(request, 'Realtime CORS', schema);
  const app = await startOrigin();
  try {
    await page.goto(app.origin);
    const url = `${new URL(baseURL).origin}/v1/${p.projectId}/realtime?tables=notes&access_token=${encodeURIComponent(p.key)}`;
    // The page opens the stream and writes each event into #out; the test
    // waits for the open before creating, as a client that is already watching.
    await page.evaluate((url) => {
      const out = document.getElementById('out')!;
      const w = window as unknown as { opened: boolean; events: { type: string; id: string; data: unknown }[] };
      w.opened = false;
      w.events = [];
      const source = new EventSource(url);
      source.onopen = () => {
        w.opened = true;
      };
      for (const type of ['create', 'update', 'delete']) {
        source.addEventListener(type, (e) => {
          const m = e as MessageEvent<string>;
          w.events.push({ type, id: m.lastEventId, data: JSON.parse(m.data) as unknown });
          out.textContent = JSON.stringify(w.events, null, 2);
        });
      }
    }, url);
    await page.waitForFunction(() => (window as unknown as { opened: boolean }).opened, undefined, { timeout: 15_000 });

    const id = await createNote(request, p, { title: 'From another client', stars: 4 });
    await page.waitForFunction(() => (window as unknown as { events: unknown[] }).events.length > 0, undefined, { timeout: 15_000 });
    const events = await page.evaluate(() => (window as unknown as { events: { type: string; id: string; data: { table: string; record: Record<string, unknown> } }[] }).events);
    expect(events[0]).toMatchObject({ type: 'create', data: { table: 'notes', record: { id, title: 'From another client', stars: 4 } } });
    expect(Number(events[0].id)).toBeGreaterThan(0);
    await expect(page.locator('#out')).toContainText('From another client');
    await snapshot(page, 'realtime-01-other-origin-eventsource');
    await page.setViewportSize(PHONE);
    await snapshot(page, 'realtime-02-other-origin-eventsource-phone');
  } finally {
    app.server.close();
    await request.dispose();
  }
});

test('the builder shows the Realtime switch and the Data page shows changes live', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL });
  const p = await createApiProject(request, 'Realtime data', schema);
  try {
    await signIn(page, p);

    await test.step('the builder shows the table as realtime', async () => {
      await page.goto(`/projects/${p.projectId}/schema`);
      await page.getByTestId('table-node-notes').click();
      await expect(page.getByLabel('Table name')).toHaveValue('notes');
      const realtime = page.getByRole('switch', { name: /Realtime/ });
      await expect(realtime).toBeChecked();
      await expect(realtime).toBeEnabled();
      await expect(realtime).toHaveAccessibleDescription(/watch its changes live/);
      await checkPage(page, 'realtime-03-builder-switch');
    });

    await test.step('a row created through the API appears without a reload', async () => {
      await createNote(request, p, { title: 'Already there' });
      await page.goto(`/projects/${p.projectId}/data/notes`);
      const indicator = page.getByTestId('live-indicator');
      await expect(indicator).toHaveAttribute('data-state', 'live');
      await expect(indicator).toHaveText('Live');
      const grid = page.getByTestId('records-table');
      await expect(grid).toContainText('Already there');
      // Reloading would remove this marker: the row must arrive in this page.
      await page.evaluate(() => ((window as unknown as { noReload: boolean }).noReload = true));

      const id = await createNote(request, p, { title: 'Arrived live', stars: 5 });
      await expect(grid.locator(`tr[data-record-id="${id}"]`)).toContainText('Arrived live');
      await expect(page.getByRole('status').filter({ hasText: /2 records/ })).toBeVisible();

      const patched = await request.patch(`/v1/${p.projectId}/notes/${id}`, { headers: { Authorization: `Bearer ${p.key}` }, data: { title: 'Changed live' } });
      expect(patched.status()).toBe(200);
      await expect(grid.locator(`tr[data-record-id="${id}"]`)).toContainText('Changed live');
      expect(await page.evaluate(() => (window as unknown as { noReload?: boolean }).noReload)).toBe(true);
      await checkPage(page, 'realtime-04-data-live');
      await page.setViewportSize(PHONE);
      await checkPage(page, 'realtime-05-data-live-phone');
      await page.setViewportSize(DESKTOP);

      const deleted = await request.delete(`/v1/${p.projectId}/notes/${id}`, { headers: { Authorization: `Bearer ${p.key}` } });
      expect(deleted.status()).toBe(200);
      await expect(grid.locator(`tr[data-record-id="${id}"]`)).toHaveCount(0);
    });

    await test.step('a table without realtime shows no indicator', async () => {
      await page.getByRole('tab', { name: 'drafts' }).click();
      await expect(page).toHaveURL(/\/data\/drafts$/);
      await expect(page.getByText('No drafts yet')).toBeVisible();
      await expect(page.getByTestId('live-indicator')).toHaveCount(0);
    });
  } finally {
    await request.dispose();
  }
});

test('the Test page opens the stream and lists its events', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL });
  const p = await createApiProject(request, 'Realtime test page', schema);
  try {
    await signIn(page, p);
    await page.goto(`/projects/${p.projectId}/test?op=${encodeURIComponent('GET /realtime')}`);
    await expect(page.getByLabel('Operation')).toHaveValue('GET /realtime');
    await expect(page.getByLabel('tables (query)')).toHaveValue('notes');
    await expect(page.getByRole('button', { name: 'Send' })).toHaveCount(0);

    await page.getByRole('button', { name: 'Open stream' }).click();
    const state = page.getByTestId('stream-state');
    await expect(state).toHaveAttribute('data-state', 'live');
    const id = await createNote(request, p, { title: 'Seen in the console' });
    const event = page.getByTestId('stream-event').first();
    await expect(event).toContainText('create');
    await expect(event).toContainText('Seen in the console');
    await expect(event).toContainText(/id \d+/);
    await expect(event).toContainText(`"id": ${id}`);
    await checkPage(page, 'realtime-06-test-stream');
    await page.setViewportSize(PHONE);
    await page.getByRole('region', { name: /Stream events/ }).scrollIntoViewIfNeeded();
    await checkPage(page, 'realtime-07-test-stream-phone');
    await page.setViewportSize(DESKTOP);

    await page.getByRole('button', { name: 'Close' }).click();
    await expect(state).toHaveAttribute('data-state', 'stopped');
    await expect(page.getByRole('button', { name: 'Open stream' })).toBeVisible();

    // A refusal is explained with the server's envelope: a table without realtime.
    await page.getByLabel('tables (query)').fill('drafts');
    await page.getByRole('button', { name: 'Open stream' }).click();
    await expect(state).toHaveAttribute('data-state', 'stopped');
    await expect(state).toContainText('INVALID_QUERY');
    await checkPage(page, 'realtime-08-test-stream-refused');
  } finally {
    await request.dispose();
  }
});

// CORS (issue 20, item 1): a web app served from another origin calls the
// generated API with fetch and an API key, reads the rows and the
// rate-limit headers; once the project lists only that origin, a page
// from a third origin cannot read the answer. The origins are tiny Node
// HTTP servers on other ports of 127.0.0.1 (another port is another origin).
import { expect, test, type Page } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { baseURL } from '../playwright.config';
import { checkPage, createApiProject, setPlan, snapshot, type ApiProject } from './support';

const schema = {
  tables: [{ name: 'items', columns: [{ name: 'name', type: 'text', required: true }] }],
};

/** Serves one blank page, which the test fills with what fetch read. */
async function startOrigin(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><head><title>Another app</title></head><body><main><h1>Another app</h1><pre id="out">…</pre></main></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

interface FetchResult {
  ok: boolean;
  status?: number;
  names?: string[];
  remaining?: string | null;
  limit?: string | null;
  error?: string;
}

/** Runs fetch in the page (on its own origin) against the project's list of items. */
async function fetchItems(page: Page, p: ApiProject): Promise<FetchResult> {
  const url = `${new URL(baseURL).origin}/v1/${p.projectId}/items`;
  const result = await page.evaluate(
    async ({ url, key }) => {
      try {
        // Authorization makes this a non-simple request: the browser sends a preflight first.
        const response = await fetch(url, { headers: { Authorization: `Bearer ${key}` } });
        const body = (await response.json()) as { data: { name: string }[] };
        return {
          ok: true,
          status: response.status,
          names: body.data.map((row) => row.name),
          remaining: response.headers.get('X-RateLimit-Remaining'),
          limit: response.headers.get('X-RateLimit-Limit'),
        };
      } catch (error) {
        return { ok: false, error: String(error) };
      }
    },
    { url, key: p.key },
  );
  await page.locator('#out').evaluate((el, text) => (el.textContent = text), JSON.stringify(result, null, 2));
  return result;
}

test('a page on another origin reads rows and rate-limit headers; a disallowed origin cannot', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL });
  const p = await createApiProject(request, 'CORS app', schema);
  test.skip(!setPlan(p.email, 'free'), 'needs scripts/e2e.sh (a Caddy to run set-plan with)');
  for (const name of ['first', 'second', 'third']) {
    const created = await request.post(`/v1/${p.projectId}/items`, { headers: { Authorization: `Bearer ${p.key}` }, data: { name } });
    expect(created.status()).toBe(201);
  }
  const app = await startOrigin();
  const other = await startOrigin();
  try {
    // The default: any origin.
    await page.goto(app.origin);
    const allowed = await fetchItems(page, p);
    expect(allowed).toMatchObject({ ok: true, status: 200, names: ['first', 'second', 'third'], limit: '100' });
    expect(Number(allowed.remaining)).toBeLessThan(100);
    await snapshot(page, 'cors-01-other-origin-reads');

    // The owner allows only the app's origin, in Settings.
    await page.goto(`${baseURL}/login`);
    await page.getByLabel('E-mail').fill(p.email);
    await page.getByLabel('Password').fill('correct-horse-battery');
    await page.getByRole('button', { name: /Log in|Sign in/ }).click();
    await expect(page).toHaveURL(/\/projects/);
    await page.goto(`${baseURL}/projects/${p.projectId}/settings`);
    const section = page.getByRole('region', { name: 'Browser access (CORS)' });
    await section.getByLabel('Only these origins').check();
    await section.getByLabel('Origins, one a line').fill(`${app.origin}/path`);
    await section.getByRole('button', { name: 'Save origins' }).click();
    await expect(section.getByText(/no path/)).toBeVisible(); // the server's field error, in place
    await section.getByLabel('Origins, one a line').fill(app.origin);
    await section.getByRole('button', { name: 'Save origins' }).click();
    await expect(page.getByText('CORS origins saved')).toBeVisible();
    await checkPage(page, 'cors-02-settings');
    await page.setViewportSize({ width: 390, height: 844 });
    await section.scrollIntoViewIfNeeded();
    await checkPage(page, 'cors-03-settings-phone');
    await page.setViewportSize({ width: 1440, height: 900 });

    // The listed origin still reads everything, headers included.
    await page.goto(app.origin);
    const listed = await fetchItems(page, p);
    expect(listed).toMatchObject({ ok: true, status: 200, names: ['first', 'second', 'third'], limit: '100' });
    expect(listed.remaining).not.toBeNull();

    // Another origin gets no Access-Control-Allow-Origin: fetch fails.
    await page.goto(other.origin);
    const refused = await fetchItems(page, p);
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/Failed to fetch/);
    await snapshot(page, 'cors-04-disallowed-origin');
  } finally {
    app.server.close();
    other.server.close();
    await request.dispose();
  }
});

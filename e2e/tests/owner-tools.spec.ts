// The owner's own tools never spend the plan and leave nothing behind
// (issue 37, item 3): with a key stored in the browser, the Data page still
// reads and streams with the dashboard session, the stream opens with a
// one-minute ticket (the session never goes into a URL), and logging out
// clears the keys and the Test console's history from the browser.
import { expect, test } from '@playwright/test';
import { baseURL } from '../playwright.config';
import { checkPage, createApiProject } from './support';

const schema = {
  tables: [{ name: 'notes', realtime: true, columns: [{ name: 'title', type: 'text', required: true }] }],
};

test('the Data page streams with a ticket, not the session, and log-out clears the browser', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL });
  const p = await createApiProject(request, 'Owner tools', schema);
  const urls: string[] = [];
  page.on('request', (r) => urls.push(r.url()));

  await page.goto('/login');
  await page.evaluate(({ session, projectId, key }) => {
    localStorage.setItem('tablesmith.session', session);
    localStorage.setItem(`tablesmith.keys.${projectId}`, JSON.stringify([{ id: 'k1', name: 'stored', secret: key, scope: 'read_write' }]));
    localStorage.setItem(`tablesmith.history.${projectId}`, JSON.stringify([{ at: new Date().toISOString(), operationId: 'GET /notes', method: 'GET', path: '/notes', url: `/v1/${projectId}/notes`, status: 200, timeMs: 3 }]));
  }, p);
  await page.goto(`/projects/${p.projectId}/data/notes`);
  // A stored key is not chosen by itself: the session stays the credential.
  await expect(page.getByLabel('Use key')).toHaveValue('dashboard-session');
  await expect(page.getByTestId('live-indicator')).toHaveAttribute('data-state', 'live');
  const created = await request.post(`/v1/${p.projectId}/notes`, { headers: { Authorization: `Bearer ${p.key}` }, data: { title: 'Seen live' } });
  expect(created.status()).toBe(201);
  await expect(page.getByTestId('records-table')).toContainText('Seen live');
  await checkPage(page, 'owner-tools-01-data-live');

  // The Test page's stream, with the session too.
  await page.goto(`/projects/${p.projectId}/test?op=${encodeURIComponent('GET /realtime')}`);
  await expect(page.getByLabel('Send with key')).toHaveValue('dashboard-session');
  await page.getByRole('button', { name: 'Open stream' }).click();
  await expect(page.getByTestId('stream-state')).toHaveAttribute('data-state', 'live');
  await page.getByRole('button', { name: 'Close' }).click();

  const streams = urls.filter((u) => u.includes('/realtime?'));
  expect(streams.length).toBeGreaterThan(0);
  for (const u of streams) expect(u).toMatch(/[?&]ticket=tsk_/);
  expect(urls.filter((u) => u.includes(encodeURIComponent(p.session)) || u.includes(p.session))).toEqual([]);

  // Log out: no key, choice or history of any project stays in the browser.
  await page.getByRole('button', { name: /Account menu/ }).click();
  await page.getByRole('menuitem', { name: /Log out/ }).click();
  await expect(page).toHaveURL(/\/login/);
  const left = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('tablesmith.')));
  expect(left).toEqual([]);
  await request.dispose();
});

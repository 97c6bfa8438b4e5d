// The request log (issue 37, item 1): a customer's failed call is found on
// the Logs page with its error body, filtered by status, path, credential
// and request id, reached from Analytics' top endpoints, and it follows
// new requests live. Screenshots at 1440×900 and 390×844, axe on each.
import { expect, test, type Page } from '@playwright/test';
import { baseURL } from '../playwright.config';
import { checkPage, createApiProject } from './support';

const schema = {
  tables: [{ name: 'books', columns: [{ name: 'title', type: 'text', required: true }, { name: 'pages', type: 'integer', min: 1 }] }],
};

async function logIn(page: Page, email: string) {
  await page.goto('/login');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill('correct-horse-battery');
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page).toHaveURL(/\/projects/);
}

for (const size of [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
]) {
  test(`a failed call is found on the Logs page with why it failed (${size.name})`, async ({ page, playwright }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    const request = await playwright.request.newContext({ baseURL });
    const p = await createApiProject(request, 'Log shop', schema);
    const key = { Authorization: `Bearer ${p.key}` };
    expect((await request.post(`/v1/${p.projectId}/books`, { headers: key, data: { title: 'Dune', pages: 412 } })).status()).toBe(201);
    const failed = await request.post(`/v1/${p.projectId}/books`, { headers: { ...key, 'X-Request-Id': `trace-${size.name}` }, data: { pages: 0 } });
    expect(failed.status()).toBe(400);
    expect((await request.get(`/v1/${p.projectId}/books?limit=5`, { headers: key })).status()).toBe(200);

    await logIn(page, p.email);
    await page.goto(`/projects/${p.projectId}/logs`);
    const rows = page.getByTestId('log-row');
    // Entries are written within a second or two of their answer; each look
    // allows 10 s for the page to load, the whole wait 60 s.
    await expect(async () => {
      await page.reload();
      await expect(rows).toHaveCount(3, { timeout: 10_000 });
    }).toPass({ timeout: 60_000 });
    // The e2e server's accounts are on the unlimited plan: 30 days.
    await expect(page.getByText('Kept for 30 days on your plan', { exact: false })).toBeVisible();

    // Only the errors, then the error's own answer.
    await page.getByRole('textbox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Errors (4xx, 5xx)' }).click();
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('400');
    await expect(rows.first()).toContainText('VALIDATION_ERROR');
    await rows.first().getByRole('button').click();
    const details = page.getByTestId('log-details');
    await expect(details).toContainText(`trace-${size.name}`);
    await expect(details).toContainText('"title"');
    await expect(details).toContainText('key e2e');
    expect(await page.content()).not.toContain(p.key);
    await checkPage(page, `request-log-01-error-${size.name}`);

    // The request id finds it too, from the URL a support message would carry.
    await page.goto(`/projects/${p.projectId}/logs?request_id=trace-${size.name}`);
    await expect(rows).toHaveCount(1);

    // Analytics' top endpoint links to its requests.
    // Analytics are written every five seconds: reload until they show.
    // Each look allows 10 s for the page to load and draw (a loaded CI
    // machine took over 2 s), and the whole wait 60 s for a 5 s flush.
    await page.goto(`/projects/${p.projectId}/analytics`);
    const topLink = page.getByRole('region', { name: 'Top endpoints' }).getByRole('link', { name: '/books', exact: true });
    await expect(async () => {
      await page.reload();
      await expect(topLink.first()).toBeVisible({ timeout: 10_000 });
    }).toPass({ timeout: 60_000 });
    await topLink.first().click();
    await expect(page).toHaveURL(/\/logs\?/);
    await expect(rows.first()).toContainText('/books');

    // Live tail: a new request shows without a reload.
    await page.goto(`/projects/${p.projectId}/logs`);
    await expect(rows).toHaveCount(3);
    await page.getByRole('switch', { name: /Live tail/ }).check();
    expect((await request.get(`/v1/${p.projectId}/books/999`, { headers: key })).status()).toBe(404);
    await expect(rows).toHaveCount(4, { timeout: 10_000 });
    await expect(rows.first()).toContainText('404');
    await checkPage(page, `request-log-02-tail-${size.name}`);
    await request.dispose();
  });
}

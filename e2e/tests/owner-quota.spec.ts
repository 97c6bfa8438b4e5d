// The owner's tools never spend the customer's quota (issue 20, item 2):
// on the free plan (100 requests an hour), once an API key has used the
// whole hour, the owner still browses Data, sends from Test and reads API
// Docs, all with the dashboard session, and analytics shows that traffic
// apart from the customers'.
import { expect, test, type Page } from '@playwright/test';
import { baseURL } from '../playwright.config';
import { checkPage, createApiProject, openSection, setPlan } from './support';

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

test('the dashboard keeps working after the plan is used up, and its traffic is shown apart', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL });
  const p = await createApiProject(request, 'Quota shop', schema);
  test.skip(!setPlan(p.email, 'free'), 'needs scripts/e2e.sh (a Caddy to run set-plan with)');
  const key = { Authorization: `Bearer ${p.key}` };

  // A customer's app uses the whole hour: 100 requests with the key, the 101st refused.
  for (let i = 1; i <= 100; i++) {
    const response = i <= 12
      ? await request.post(`/v1/${p.projectId}/books`, { headers: key, data: { title: `Book ${i}`, pages: 100 + i } })
      : await request.get(`/v1/${p.projectId}/books?limit=1`, { headers: key });
    expect(response.status(), `key request ${i}`).toBeLessThan(300);
  }
  const refused = await request.get(`/v1/${p.projectId}/books`, { headers: key });
  expect(refused.status()).toBe(429);

  await logIn(page, p.email);
  await page.goto(`/projects/${p.projectId}/data`);

  // Data: every visit reads with the session; none is refused.
  for (let visit = 0; visit < 3; visit++) {
    await page.reload();
    await expect(page.getByTestId('records-table')).toContainText('Book 12');
  }
  await expect(page.getByLabel('Use key')).toHaveValue('dashboard-session');
  await checkPage(page, 'owner-quota-01-data');

  // Test: a create and a list from the console, past the plan's limit.
  await openSection(page, 'Test');
  const operation = page.getByLabel('Operation');
  await operation.selectOption('GET /books');
  for (let i = 0; i < 3; i++) {
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.getByTestId('response-status')).toContainText('200');
  }
  await expect(page.getByTestId('response-body')).toContainText('Book 1');
  await checkPage(page, 'owner-quota-02-test');

  // The key is still refused: the dashboard took nothing and gave nothing back.
  expect((await request.get(`/v1/${p.projectId}/books`, { headers: key })).status()).toBe(429);

  // Analytics: the customer's 101 requests; the dashboard's counted apart;
  // openapi.json (fetched by Test and API Docs) nowhere.
  await expect
    .poll(
      async () => {
        const response = await request.get(`/api/projects/${p.projectId}/analytics?range=1h`, { headers: { Authorization: `Bearer ${p.session}` } });
        const data = ((await response.json()) as { data: { summary: { total_requests: number }; dashboard: { requests: number } } }).data;
        return [data.summary.total_requests, data.dashboard.requests >= 6];
      },
      { timeout: 20_000 },
    )
    .toEqual([102, true]);
  await openSection(page, 'Analytics');
  await page.getByText('Last hour', { exact: true }).click();
  await expect(page.getByTestId('dashboard-traffic')).toContainText('from your dashboard');
  const topEndpoints = page.getByRole('region', { name: 'Top endpoints', exact: true });
  await expect(topEndpoints).toContainText('/books');
  await expect(topEndpoints).not.toContainText('openapi');
  await checkPage(page, 'owner-quota-03-analytics');
  await page.setViewportSize({ width: 390, height: 844 });
  await checkPage(page, 'owner-quota-04-analytics-phone');
  await request.dispose();
});

// A project that fronts an existing PostgreSQL database (issue 10): the
// create form puts connection problems at the field they concern, the
// builder shows the database's own types as read-only, Settings shows the
// masked connection, its health and the tables left out, and "Refresh from
// database" shows a column added outside Tablesmith and adopts it.
//
// It needs a database it may fill: TABLESMITH_E2E_EXTERNAL_URL, e.g.
// postgres://postgres@127.0.0.1:5432/ts_e2e_shop?sslmode=disable (not the
// server's own database), and psql on the PATH to load fixtures/shop.sql.
// Without it the test is skipped.
import { expect, test } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkPage, openSection, projectIdFrom } from './support';

const externalUrl = process.env.TABLESMITH_E2E_EXTERNAL_URL ?? '';
const fixture = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'shop.sql');

function psql(args: string[]) {
  execFileSync('psql', [externalUrl, '-X', '-q', '-v', 'ON_ERROR_STOP=1', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The same server and credentials with another database name. */
function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

test.skip(!externalUrl, 'set TABLESMITH_E2E_EXTERNAL_URL to a database the test may fill');

test('front an existing database: connection errors at their field, read-only columns, refresh', async ({ page }) => {
  psql(['-f', fixture]);
  const stamp = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
  let projectId = '';

  await test.step('connection problems show at the field they concern', async () => {
    await page.goto('/signup');
    await page.getByLabel('Name').fill('Db Owner');
    await page.getByLabel('E-mail').fill(`owner.${stamp}@example.com`);
    await page.getByLabel('Password').fill('correct-horse-battery');
    await page.getByRole('button', { name: /Sign up/ }).click();
    await expect(page).toHaveURL(/\/projects$/);
    await page.getByRole('button', { name: /New project|Create your first project/ }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New project' });
    await dialog.getByLabel('Project name').fill('Shop');
    await dialog.getByRole('radio', { name: 'Existing PostgreSQL database' }).check();
    const url = dialog.getByRole('textbox', { name: 'Connection URL' });
    const schema = dialog.getByRole('textbox', { name: 'Schema' });

    await url.fill(externalUrl);
    await schema.fill('nope');
    await dialog.getByRole('button', { name: 'Connect and create project' }).click();
    await expect(schema).toHaveAttribute('aria-invalid', 'true');
    await expect(schema).toHaveAccessibleDescription(/schema "nope" does not exist/);
    await expect(url).not.toHaveAttribute('aria-invalid', 'true');

    await url.fill(withDatabase(externalUrl, `ts_e2e_missing_${stamp}`));
    await schema.fill('shop');
    await dialog.getByRole('button', { name: 'Connect and create project' }).click();
    await expect(url).toHaveAttribute('aria-invalid', 'true');
    await expect(url).toHaveAccessibleDescription(/does not exist/);
    await expect(schema).not.toHaveAttribute('aria-invalid', 'true');
    await checkPage(page, 'external-01-connection-error');

    await url.fill(externalUrl);
    await dialog.getByRole('button', { name: 'Connect and create project' }).click();
    await expect(page).toHaveURL(/\/projects\/[^/]+\/schema$/, { timeout: 30_000 });
    projectId = projectIdFrom(page.url());
  });

  await test.step('the builder shows database types as read-only columns', async () => {
    await expect(page.getByTestId('external-source')).toContainText('shop');
    await expect(page.getByTestId('table-node-customers')).toContainText('text[]');
    await page.getByTestId('table-node-customers').click();
    await expect(page.getByLabel('Table name')).toHaveValue('customers');
    // Realtime would need triggers in the fronted database: the switch says so and stays off.
    const realtime = page.getByRole('switch', { name: /Realtime/ });
    await expect(realtime).toBeDisabled();
    await expect(realtime).not.toBeChecked();
    await expect(realtime).toHaveAccessibleDescription(/Not available on a table of a fronted database/);
    const tags = page.getByTestId('column-tags');
    await expect(tags).toHaveAttribute('data-readonly', 'true');
    await expect(tags).toContainText('read-only');
    await expect(page.getByTestId('column-tags-db-type')).toHaveText('database type text[]');
    await expect(page.getByTestId('column-last_ip-db-type')).toHaveText('database type inet');
    await expect(tags.getByRole('textbox')).toHaveCount(0);
    await expect(page.getByTestId('column-id')).toContainText('primary key');
    await expect(page.getByTestId('external-table-note')).toContainText('The API sets created_at');
    await checkPage(page, 'external-02-builder');
  });

  await test.step('settings show the masked connection, its health and what was left out', async () => {
    await openSection(page, 'Settings');
    const section = page.locator('#database');
    await expect(section.getByTestId('connection-url')).toContainText(new URL(externalUrl).host);
    await expect(section.getByTestId('connection-status')).toBeVisible();
    const leftOut = section.getByRole('table', { name: 'Left out of the API' });
    await expect(leftOut).toContainText('audit_log');
    await expect(leftOut).toContainText('big_orders');
    await expect(leftOut).toContainText('view');
    await checkPage(page, 'external-03-settings');
  });

  await test.step('refresh shows a column added in the database and adopts it', async () => {
    psql(['-c', 'ALTER TABLE shop.orders ADD COLUMN note text']);
    const section = page.locator('#database');
    await section.getByRole('button', { name: 'Refresh from database' }).click();
    const report = section.getByTestId('refresh-report');
    const changed = report.getByRole('table', { name: 'Changed in the database' });
    await expect(changed).toContainText('Column added');
    await expect(changed).toContainText('orders.note');
    await checkPage(page, 'external-04-refresh');
    await report.getByRole('button', { name: /Adopt the change from the database/ }).click();
    await expect(section.getByTestId('refresh-adopted')).toBeVisible();
    await section.getByTestId('refresh-adopted').getByRole('link', { name: 'Open the builder' }).click();
    await expect(page.getByTestId('table-node-orders')).toContainText('note');
    expect(projectId).toBeTruthy();
  });
});

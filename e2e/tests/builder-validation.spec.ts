// The schema builder flags problems at the field as the user types, and the
// server's verdict replaces the client's once the schema is clean.
import { expect, test, type Locator } from '@playwright/test';
import { checkPage, signUpWithProject } from './support';

async function expectFieldProblem(field: Locator, message: string | RegExp) {
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveAccessibleDescription(message);
}

test('the builder shows validation problems at the field as you type', async ({ page }) => {
  await signUpWithProject(page, 'Validation');
  await page.getByRole('button', { name: 'Add a users table' }).click();

  const tableName = page.getByLabel('Table name');
  await tableName.fill('Users');
  await expectFieldProblem(tableName, 'Table name must start with a lower-case letter');
  await tableName.fill('docs');
  await expectFieldProblem(tableName, '"docs" is reserved');
  await tableName.fill('members');
  await expect(tableName).not.toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText(/problems? to fix/)).toHaveCount(0);

  await page.getByRole('button', { name: 'Add column' }).click();
  const columnName = page.getByLabel('Column 1 name');
  await columnName.fill('created_at');
  await expectFieldProblem(columnName, '"created_at" is a system column every table already has');
  await columnName.fill('status');
  await page.getByLabel('Column 1 type').selectOption('enum');
  await expect(page.getByText('1 problem to fix before generating')).toBeVisible();
  await page.getByRole('button', { name: 'Show constraints of status' }).click();
  const values = page.getByRole('textbox', { name: 'Allowed values' });
  await expectFieldProblem(values, /an enum needs at least one value/);
  await checkPage(page, 'validation-enum');

  await values.fill('draft');
  await values.press('Enter');
  await values.fill('live');
  await values.press('Enter');
  await expect(page.getByText(/problems? to fix/)).toHaveCount(0);

  // Clean on the client: the server is asked and has the final word.
  await expect(page.getByText('The server accepts this schema.')).toBeVisible({ timeout: 30_000 });

  await page.getByRole('switch', { name: /Auth table/ }).check();
  await expect(page.getByRole('switch', { name: /Auth table/ })).toHaveAccessibleDescription(/needs a column named email of type email/);
});

test('the builder offers an edge cache lifetime only on a publicly readable table', async ({ page }) => {
  await signUpWithProject(page, 'Edge cache');
  await page.getByRole('button', { name: 'Add a users table' }).click();
  await page.getByLabel('Table name').fill('articles');

  const cache = page.getByRole('textbox', { name: 'Edge cache (seconds)' });
  await expect(cache).toBeDisabled();
  await expect(cache).toHaveAccessibleDescription(/Needs the public read permission/);

  await page.getByLabel('Read (list and get)').selectOption('public');
  await expect(cache).toBeEnabled();
  await cache.fill('0');
  await expectFieldProblem(cache, /whole number of seconds from 1 to 86400/);
  await cache.fill('30');
  await expect(cache).not.toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('The server accepts this schema.')).toBeVisible({ timeout: 30_000 });
  await checkPage(page, 'validation-edge-cache');

  // Back to authenticated reads: the lifetime stays, flagged, until it is cleared.
  await page.getByLabel('Read (list and get)').selectOption('');
  await expectFieldProblem(cache, /public read permission/);
  await cache.fill('');
  await expect(cache).toBeDisabled();
  await expect(page.getByText(/problems? to fix/)).toHaveCount(0);
});

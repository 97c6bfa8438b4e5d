// The whole journey of issue 9 in a browser: sign up, create a project,
// build users and posts with a foreign key, generate, authorize in API Docs
// and create a user there, list posts with a filter and an include from the
// Test page, and find the records on the Data page. Every page is
// screenshotted into e2e/artifacts/ and checked with axe.
import { expect, test, type Page } from '@playwright/test';
import { checkPage, fillCodeEditor, platformGet, projectIdFrom } from './support';

interface SchemaDocument {
  tables: { name: string; position?: { x: number; y: number }; columns: { name: string; type: string; references?: { table: string } }[] }[];
}

const stamp = Date.now();
const account = { name: 'Ada Journey', email: `ada.${stamp}@example.com`, password: 'correct-horse-battery' };
const endUser = { email: `reader.${stamp}@example.com`, name: 'Reader One', password: 'another-long-secret' };

test('from sign-up to a working, tested API', async ({ page }) => {
  let projectId = '';
  let userId = 0;

  await test.step('sign up', async () => {
    await page.goto('/signup');
    await expect(page.getByRole('heading', { name: 'Create your account' })).toBeVisible();
    await page.getByLabel('Name').fill(account.name);
    await page.getByLabel('E-mail').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await checkPage(page, '01-signup');
    await page.getByRole('button', { name: /Sign up/ }).click();
    await expect(page).toHaveURL(/\/projects$/);
    await expect(page.getByRole('heading', { name: 'Projects', exact: true })).toBeVisible();
    await expect(page.getByText('No projects yet')).toBeVisible();
    await expect(page.getByLabel('Your plan')).toContainText('Plan');
    await checkPage(page, '02-projects-empty');
  });

  await test.step('create a project with the recommended engine', async () => {
    await page.getByRole('button', { name: 'Create your first project' }).click();
    const dialog = page.getByRole('dialog', { name: 'New project' });
    await expect(dialog.getByText('Recommended', { exact: true })).toBeVisible();
    await expect(dialog.getByRole('radio', { name: 'PostgreSQL, managed schema' })).toBeChecked();
    await dialog.getByLabel('Project name').fill('Blog API');
    await checkPage(page, '03-project-create');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await expect(page).toHaveURL(/\/projects\/[^/]+\/schema$/);
    projectId = projectIdFrom(page.url());
    await expect(page.getByText('Start with a table')).toBeVisible();
  });

  await test.step('build users and posts with a foreign key', async () => {
    await page.getByRole('button', { name: 'Add a users table' }).click();
    await expect(page.getByLabel('Table name')).toHaveValue('users');
    await addColumn(page, 1, 'email', 'email', { required: true, unique: true });
    await addColumn(page, 2, 'password_hash', 'password', { required: true });
    await addColumn(page, 3, 'name', 'text');
    await page.getByRole('switch', { name: /Auth table/ }).check();

    await page.getByRole('button', { name: 'Add table' }).click();
    await page.getByLabel('Table name').fill('posts');
    await addColumn(page, 1, 'title', 'text', { required: true });
    await page.getByLabel('Add a foreign key to').selectOption('users');
    await page.getByRole('button', { name: 'Add relationship' }).click();
    await expect(page.getByLabel('Column 2 name')).toHaveValue('user_id');
    await page.getByLabel('Column 2 name').fill('author_id');

    // The diagram shows both tables and the foreign key between them.
    await expect(page.getByTestId('table-node-users')).toBeVisible();
    await expect(page.getByTestId('table-node-posts')).toContainText('→ users');
    await expect(page.locator('.react-flow__edge')).toHaveCount(1);

    // Dragging a table stores its position in the schema document.
    const header = page.getByTestId('table-node-posts').locator('div').first();
    const box = (await header.boundingBox())!;
    await page.mouse.move(box.x + 30, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 90, box.y + box.height / 2 + 60, { steps: 8 });
    await page.mouse.up();

    await expect(page.getByText('Unsaved changes')).toBeVisible();
    await expect(page.getByText(/problems? to fix/)).toHaveCount(0);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('Saved', { exact: true })).toBeVisible();
    await expect(page.getByText(/not generated yet/)).toBeVisible();
    await checkPage(page, '04-schema-builder');

    const saved = await platformGet<SchemaDocument>(page, `/api/projects/${projectId}/schema`);
    expect(saved.tables.map((t) => t.name)).toEqual(['users', 'posts']);
    const posts = saved.tables[1];
    expect(posts.columns.find((c) => c.name === 'author_id')?.references?.table).toBe('users');
    expect(posts.position, 'the dragged table has a saved position').toBeTruthy();
  });

  await test.step('generate the API', async () => {
    await openSection(page, 'Generate');
    await expect(page.getByRole('heading', { name: 'Generate', exact: true })).toBeVisible();
    await expect(page.getByText(/pending changes?/)).toBeVisible();
    await expect(page.getByRole('table', { name: 'Pending changes' })).toContainText('posts');
    await checkPage(page, '05-generate-plan');
    await page.getByRole('button', { name: 'Generate API' }).click();
    await expect(page.getByText('Version 1 is live')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByRole('table', { name: 'Endpoints' })).toContainText('/posts/{id}');
    await checkPage(page, '06-generate-done');
  });

  await test.step('authorize in API Docs and execute a create', async () => {
    await openSection(page, 'API Docs');
    await page.getByRole('button', { name: 'Create a key' }).click();
    await expect(page.getByLabel('Authorize with')).toBeVisible();
    const swagger = page.getByTestId('swagger');
    await expect(swagger.locator('.opblock').first()).toBeVisible({ timeout: 60_000 });

    // Authorize is already filled in with the chosen key.
    await swagger.getByRole('button', { name: /Authorize/ }).first().click();
    const authDialog = page.locator('.dialog-ux .modal-ux');
    await expect(authDialog.getByText('Authorized', { exact: true })).toBeVisible();
    await expect(authDialog.locator('button', { hasText: 'Logout' })).toBeVisible();
    await authDialog.locator('button', { hasText: 'Close' }).click();
    await expect(authDialog).toHaveCount(0);

    const create = swagger.locator('.opblock-post').filter({ has: page.locator('[data-path="/users"], .opblock-summary-path:text-is("/users")') }).first();
    await create.locator('.opblock-summary').click();
    const tryItOut = create.getByRole('button', { name: 'Try it out' });
    if (await tryItOut.isVisible()) await tryItOut.click();
    await create.locator('textarea.body-param__text').fill(JSON.stringify(endUser));
    await create.getByRole('button', { name: 'Execute' }).click();
    const status = create.locator('.live-responses-table tbody .response-col_status').first();
    await expect(status).toHaveText('201', { timeout: 30_000 });
    await checkPage(page, '07-api-docs');
    const body = await create.locator('.live-responses-table tbody .response-col_description pre').first().innerText();
    userId = (JSON.parse(body) as { data: { id: number } }).data.id;
    expect(userId).toBeTruthy();
  });

  await test.step('create a post and list posts with a filter and an include from the Test page', async () => {
    await openSection(page, 'Test');
    const operation = page.getByLabel('Operation');
    await expect(operation).toBeVisible();

    await operation.selectOption('POST /posts');
    await fillCodeEditor(page, '[data-testid=request-body]', JSON.stringify({ title: 'Hello from the journey', author_id: userId }));
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.getByTestId('response-status')).toContainText('201');

    await operation.selectOption('GET /posts');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 1 column').selectOption('author_id');
    await page.getByLabel('Filter 1 value').fill(String(userId));
    await page.getByRole('textbox', { name: 'Include related' }).click();
    await page.getByRole('option', { name: 'author', exact: true }).click();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('request-url')).toContainText(`filter[author_id]=${userId}`);
    await expect(page.getByTestId('request-url')).toContainText('include=author');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.getByTestId('response-status')).toContainText('200');
    const listed = JSON.parse(await page.getByTestId('response-body').innerText()) as {
      data: { title: string; author: { email: string } }[];
    };
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0].title).toBe('Hello from the journey');
    expect(listed.data[0].author.email).toBe(endUser.email);
    await expect(page.getByRole('button', { name: /Repeat GET/ })).toBeVisible();
    await checkPage(page, '08-test-console');
  });

  await test.step('see the records on the Data page', async () => {
    await openSection(page, 'Data');
    await expect(page.getByTestId('records-table')).toContainText(endUser.email);
    await checkPage(page, '09-data-users');
    await page.getByRole('tab', { name: 'posts' }).click();
    await expect(page.getByTestId('records-table')).toContainText('Hello from the journey');
    await checkPage(page, '10-data-posts');
  });

  await test.step('analytics and settings', async () => {
    await openSection(page, 'Analytics');
    await expect(page.getByRole('heading', { name: 'Analytics', exact: true })).toBeVisible();
    // The journey's own requests show up: a chart of them and this hour's usage.
    await expect(page.getByText('Requests by status class')).toBeVisible();
    await expect(page.getByTestId('usage-meter')).toContainText('this hour');
    await page.waitForLoadState('networkidle');
    await checkPage(page, '11-analytics');

    await openSection(page, 'Settings');
    await expect(page.getByRole('table', { name: 'API keys' })).toContainText('in this browser');
    await checkPage(page, '12-settings');
  });

  await test.step('narrow window', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Toggle project menu' }).click();
    await openSection(page, 'Schema');
    await expect(page.getByLabel('Table name')).toBeVisible();
    await checkPage(page, '13-schema-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await test.step('log out and back in', async () => {
    await page.getByRole('button', { name: /Account menu/ }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await checkPage(page, '14-login');
    await page.getByLabel('E-mail').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('link', { name: 'Blog API' })).toBeVisible();
  });
});

async function addColumn(page: Page, position: number, name: string, type: string, flags: { required?: boolean; unique?: boolean } = {}) {
  await page.getByRole('button', { name: 'Add column' }).click();
  await page.getByLabel(`Column ${position} name`).fill(name);
  await page.getByLabel(`Column ${position} type`).selectOption(type);
  if (flags.required || flags.unique) {
    await page.getByRole('button', { name: `Show constraints of ${name}` }).click();
    if (flags.required) await page.getByRole('checkbox', { name: `Required (${name})` }).check();
    if (flags.unique) await page.getByRole('checkbox', { name: `Unique (${name})` }).check();
    await page.getByRole('button', { name: `Hide constraints of ${name}` }).click();
  }
}

async function openSection(page: Page, name: string) {
  await page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name, exact: true }).click();
}

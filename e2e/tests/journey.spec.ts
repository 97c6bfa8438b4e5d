// The whole journey of issue 9 in a browser: sign up, create a project,
// build users and posts with a foreign key, generate, authorize in API Docs
// and create a user there, list posts with a filter and an include from the
// Test page, and find the records on the Data page; then download the
// schema, upload changed copies of it (one the server finds problems in,
// one whose new required column existing rows block on the Generate page)
// and reset the draft to version 1 from the version history. Every page is
// screenshotted into e2e/artifacts/ and checked with axe.
import { expect, test, type Page } from '@playwright/test';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkPage, fillCodeEditor, openSection, platformGet, projectIdFrom, sessionToken } from './support';

interface SchemaDocument {
  tables: {
    name: string;
    position?: { x: number; y: number };
    columns: { name: string; type: string; required?: boolean; references?: { table: string } }[];
  }[];
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
    // One badge says both (issue 37.6: no second "Saved" beside it).
    await expect(page.getByText('Saved, not generated yet', { exact: true })).toBeVisible();
    await expect(page.getByText('Saved', { exact: true })).toHaveCount(0);
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
    // The new key is not chosen by itself (the session stays, counting
    // nothing); the journey sends as a customer's app would, so it picks it.
    await expect(page.getByLabel('Authorize with').locator('option')).toHaveCount(2);
    await page.getByLabel('Authorize with').selectOption({ index: 1 });
    await expect(page.getByTestId('key-counts-note')).toBeVisible();
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
    // Execute starts a fetch, never a navigation: waiting for "scheduled
    // navigations" after it timed out in a renderer starved beside the Go
    // tests (CI); the answer shown is awaited below.
    await create.getByRole('button', { name: 'Execute' }).click({ noWaitAfter: true });
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
    // The dropdown can move while it opens on a loaded machine, and a click
    // that lands on the field's label closes it: open it again until the
    // option is chosen (each try allows 5 s, all of them 30 s).
    await expect(async () => {
      await page.getByRole('textbox', { name: 'Include related' }).click();
      await page.getByRole('option', { name: 'author', exact: true }).click({ timeout: 5_000 });
    }).toPass({ timeout: 30_000 });
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

  await test.step('download the schema and upload changed copies of it', async () => {
    await openSection(page, 'Schema');
    await expect(page.getByLabel('Table name')).toBeVisible();

    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download schema' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(`${projectId}-schema.json`);
    const exported = JSON.parse(await readFile((await download.path())!, 'utf8')) as SchemaDocument;
    expect(exported.tables.map((t) => t.name)).toEqual(['users', 'posts']);
    const posts = exported.tables.find((t) => t.name === 'posts')!;

    // A copy the server finds a problem in: it is saved, and the problem
    // is shown at its path.
    posts.columns.push({ name: 'subtitle', type: 'string' });
    const badFile = await writeSchemaFile('journey-schema-bad.json', exported);
    await uploadSchema(page, badFile);
    const confirm = page.getByRole('dialog', { name: 'Replace the draft with journey-schema-bad.json?' });
    await expect(confirm).toContainText('Columns added: posts.subtitle');
    await checkPage(page, '15-schema-upload-confirm');
    await confirm.getByRole('button', { name: 'Replace the draft' }).click();
    const replaced = notice(page);
    await expect(replaced).toContainText('Uploaded journey-schema-bad.json: it is now the draft');
    await expect(replaced).toContainText('the server found a problem to fix before it can be generated, first at table posts › column subtitle › type');
    // The builder opens the table of the problem and marks the field.
    await expect(page.getByText('1 problem to fix before generating (found by the server)')).toBeVisible();
    await expect(page.getByLabel('Table name')).toHaveValue('posts');
    await expect(page.getByLabel('Column 3 type')).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByLabel('Column 3 type')).toHaveAccessibleDescription(/unknown type "string"/);
    await checkPage(page, '16-schema-upload-problems');

    // A valid copy whose new column is required without a default: the
    // existing post cannot have a value for it.
    posts.columns[posts.columns.length - 1] = { name: 'subtitle', type: 'text', required: true };
    const goodFile = await writeSchemaFile('journey-schema.json', exported);
    await uploadSchema(page, goodFile);
    await page.getByRole('dialog', { name: 'Replace the draft with journey-schema.json?' }).getByRole('button', { name: 'Replace the draft' }).click();
    await expect(replaced).toContainText('Uploaded journey-schema.json: it is now the draft');
    await expect(replaced).toContainText('The server accepts it');
    await expect(page.getByTestId('table-node-posts')).toContainText('subtitle');
    await expect(page.getByText('Saved, not generated yet', { exact: true })).toBeVisible();
    await checkPage(page, '17-schema-uploaded');
    const saved = await platformGet<SchemaDocument>(page, `/api/projects/${projectId}/schema`);
    expect(saved.tables[1].columns.map((c) => c.name)).toContain('subtitle');
  });

  await test.step('the plan shows the existing row that blocks the new required column', async () => {
    await notice(page).getByRole('link', { name: 'review the plan and generate' }).click();
    await expect(page.getByRole('heading', { name: 'Generate', exact: true })).toBeVisible();
    const change = page.getByTestId('change-posts.subtitle');
    await expect(change).toContainText('blocked');
    await expect(change).toContainText('1 existing row breaks this rule');
    await expect(page.getByRole('alert').filter({ hasText: 'Existing rows block this generate' })).toBeVisible();
    await checkPage(page, '18-generate-blocked');

    // Generate waits for the rows (issue 37.4): the button is off and says
    // why; the server refuses the generate all the same.
    await expect(page.getByRole('button', { name: 'Generate API' })).toBeDisabled();
    await expect(page.getByTestId('generate-blocked-reason')).toContainText('existing rows break a rule');
    const refused = await page.request.post(`/api/projects/${projectId}/generate`, { headers: { Authorization: `Bearer ${await sessionToken(page)}` }, data: {} });
    expect(refused.status(), await refused.text()).toBe(409);
    const versions = await platformGet<{ version: number }[]>(page, `/api/projects/${projectId}/schema/versions`);
    expect(versions.map((v) => v.version)).toEqual([1]);
  });

  await test.step('reset the draft to version 1 from the version history', async () => {
    await openSection(page, 'Schema');
    await page.getByRole('button', { name: 'Version history' }).click();
    const drawer = page.getByRole('dialog', { name: 'Version history' });
    const v1 = drawer.getByTestId('version-1');
    await expect(v1).toContainText('Live');
    await expect(v1).toContainText('users, posts');
    await checkPage(page, '19-version-history');

    const downloading = page.waitForEvent('download');
    await v1.getByRole('button', { name: 'Download version 1' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(`${projectId}-schema-v1.json`);
    const published = JSON.parse(await readFile((await download.path())!, 'utf8')) as SchemaDocument;
    expect(published.tables.find((t) => t.name === 'posts')!.columns.map((c) => c.name)).not.toContain('subtitle');

    await v1.getByRole('button', { name: 'Reset draft to this version (version 1)' }).click();
    const confirm = page.getByRole('dialog', { name: 'Reset the draft to version 1?' });
    await expect(confirm).toContainText('Columns removed from the draft: posts.subtitle');
    await checkPage(page, '20-reset-confirm');
    await confirm.getByRole('button', { name: 'Reset the draft' }).click();
    await expect(confirm).toHaveCount(0);
    await expect(notice(page)).toContainText('Reset to version 1: it is now the draft');
    await expect(notice(page)).toContainText('there is nothing to generate');
    await expect(page.getByTestId('table-node-posts')).not.toContainText('subtitle');
    await expect(page.getByText('Published', { exact: true })).toBeVisible();
    await checkPage(page, '21-schema-reset');
    const draft = await platformGet<SchemaDocument>(page, `/api/projects/${projectId}/schema`);
    expect(draft.tables[1].columns.map((c) => c.name)).not.toContain('subtitle');
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

function notice(page: Page) {
  return page.getByTestId('draft-replaced');
}

async function writeSchemaFile(name: string, doc: SchemaDocument): Promise<string> {
  await mkdir(test.info().outputDir, { recursive: true });
  const path = join(test.info().outputDir, name);
  await writeFile(path, `${JSON.stringify(doc, null, 2)}\n`);
  return path;
}

async function uploadSchema(page: Page, path: string) {
  const choosing = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload schema' }).click();
  await (await choosing).setFiles(path);
}


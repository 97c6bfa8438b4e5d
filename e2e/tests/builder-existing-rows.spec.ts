// The builder catches what generate will refuse (issue 37, item 4): a new
// required column without a default on a table that has rows is flagged
// with the rows it breaks, and offers a default or a one-off backfill; while
// a plan is blocked the Generate buttons are off and say why; and the
// builder does not flicker (Validate keeps its label while the automatic
// check runs, the "server accepts" line does not move the page).
// Screenshots at 1440x900 and 390x844 (e2e/artifacts/builder-rows-*.png).
import { expect, test, type Page } from '@playwright/test';
import { baseURL } from '../playwright.config';
import { checkPage, createApiProject } from './support';

const wide = { width: 1440, height: 900 };
const narrow = { width: 390, height: 844 };

const schema = { tables: [{ name: 'books', columns: [{ name: 'title', type: 'text', required: true }] }] };

/** The top of the builder's workspace, which must not move while verdicts come and go. */
async function workspaceTop(page: Page): Promise<number> {
  const box = await page.getByRole('tab', { name: 'Diagram' }).boundingBox();
  expect(box, 'the diagram tab is on the page').toBeTruthy();
  return box!.y;
}

test('a required column on a table with rows is caught in the builder, with a default or a backfill as the way out', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL });
  const p = await createApiProject(request, 'Existing rows', schema);
  for (const title of ['Dune', 'Emma', 'Ulysses']) {
    const created = await request.post(`/v1/${p.projectId}/books`, { headers: { Authorization: `Bearer ${p.key}` }, data: { title } });
    expect(created.status()).toBe(201);
  }
  await page.setViewportSize(wide);
  await page.goto('/login');
  await page.evaluate((session) => localStorage.setItem('tablesmith.session', session), p.session);
  await page.goto(`/projects/${p.projectId}/schema`);
  await page.getByTestId('table-node-books').click();
  await expect(page.getByLabel('Table name')).toHaveValue('books');

  // The Validate button keeps its label while the automatic checks run.
  const validate = page.getByRole('button', { name: 'Validate' });
  await page.getByRole('button', { name: 'Add column' }).click();
  await page.getByLabel('Column 2 name').fill('year_of');
  await page.getByLabel('Column 2 type').selectOption('integer');
  await expect(page.getByText('The server accepts this schema.')).toBeVisible({ timeout: 30_000 });
  const top = await workspaceTop(page);
  let blanked = false;
  for (const name of ['year_o', 'year_', 'year']) await page.getByLabel('Column 2 name').fill(name);
  // Watch the button and the page through the pause and the automatic
  // check that follows it, until the new verdict is in.
  const accepts = page.getByText('The server accepts this schema.');
  const deadline = Date.now() + 30_000;
  let sawNewVerdictPending = false;
  for (;;) {
    blanked ||= (await validate.getAttribute('data-loading')) !== null;
    sawNewVerdictPending ||= !(await accepts.isVisible());
    expect(await workspaceTop(page), 'the page does not move while the verdict is renewed').toBe(top);
    if (sawNewVerdictPending && (await accepts.isVisible())) break;
    expect(Date.now(), 'the automatic check ran and answered').toBeLessThan(deadline);
    await page.waitForTimeout(40);
  }
  expect(blanked, 'the Validate button never showed a spinner for an automatic check').toBe(false);

  await test.step('required without a default: flagged with the 3 rows it breaks', async () => {
    await page.getByRole('button', { name: 'Show constraints of year' }).click();
    await page.getByRole('checkbox', { name: 'Required (year)' }).check();
    const panel = page.getByTestId('existing-rows');
    await expect(panel).toContainText('books has 3 rows: they would have no value for the new required column year');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Schema saved')).toBeVisible();
    // Saved but blocked: Generate is there, off, and says why.
    await expect(page.getByRole('main').getByRole('button', { name: 'Generate', exact: true })).toBeDisabled();
    await expect(page.getByTestId('validation-status')).toContainText('Generate is blocked. Existing rows block a new column');
    await checkPage(page, 'builder-rows-01-blocked-1440');
    await page.setViewportSize(narrow);
    await checkPage(page, 'builder-rows-02-blocked-390');
    await page.setViewportSize(wide);
  });

  await test.step('the Generate page agrees: the button is off with the reason', async () => {
    await page.goto(`/projects/${p.projectId}/generate`);
    await expect(page.getByTestId('change-books.year')).toContainText('3 existing rows break this rule');
    await expect(page.getByRole('button', { name: 'Generate API' })).toBeDisabled();
    await expect(page.getByTestId('generate-blocked-reason')).toContainText('existing rows break a rule');
    await checkPage(page, 'builder-rows-03-generate-blocked-1440');
  });

  await test.step('a one-off backfill lets it through, fills the rows, and is no default', async () => {
    await page.goto(`/projects/${p.projectId}/schema`);
    const backfill = page.getByRole('textbox', { name: 'Fill existing rows of year once with' });
    await backfill.fill('1999');
    await expect(page.getByTestId('existing-rows')).toHaveCount(0);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Schema saved')).toBeVisible();
    const generate = page.getByRole('main').getByRole('link', { name: 'Generate', exact: true });
    await expect(generate).toBeVisible();
    await generate.click();
    await expect(page.getByRole('button', { name: 'Generate API' })).toBeEnabled();
    await expect(page.getByTestId('change-books.year')).toContainText('existing rows get 1999 once');
    await page.getByRole('button', { name: 'Generate API' }).click();
    await expect(page.getByText('Version 2 is live')).toBeVisible({ timeout: 60_000 });
    const books = (await (await request.get(`/v1/${p.projectId}/books`, { headers: { Authorization: `Bearer ${p.key}` } })).json()) as { data: { year: number }[] };
    expect(books.data.map((b) => b.year)).toEqual([1999, 1999, 1999]);
    const withoutYear = await request.post(`/v1/${p.projectId}/books`, { headers: { Authorization: `Bearer ${p.key}` }, data: { title: 'Orlando' } });
    expect(withoutYear.status(), 'a new record still needs a year: the backfill is no default').toBe(400);
    await checkPage(page, 'builder-rows-04-generated-1440');
    await page.setViewportSize(narrow);
    await checkPage(page, 'builder-rows-05-generated-390');
  });
  await request.dispose();
});

// Data editing is consistent (issue 37, item 5): the record form refuses a
// number out of bounds with the cell editor's words instead of clamping it;
// a reference cell opens its editor on double-click instead of following
// its link; an import lists every problem at once, each with its row, and
// marks those rows; a refused delete of a referenced record says why and
// not "deleted for good". Screenshots at 1440x900 and 390x844
// (e2e/artifacts/data-editing-*.png), axe on each.
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { baseURL } from '../playwright.config';
import { artifactsDir, checkPage, createApiProject } from './support';

const wide = { width: 1440, height: 900 };
const narrow = { width: 390, height: 844 };

const schema = {
  tables: [
    {
      name: 'authors',
      columns: [
        { name: 'name', type: 'text', required: true },
        { name: 'email', type: 'email', required: true, unique: true },
      ],
    },
    {
      name: 'reviews',
      columns: [
        { name: 'title', type: 'text', required: true },
        { name: 'rating', type: 'integer', min: 1, max: 5 },
        { name: 'author_id', type: 'integer', references: { table: 'authors', on_delete: 'restrict' } },
      ],
    },
  ],
};

const grid = (page: Page) => page.getByTestId('records-table');
const cell = (page: Page, id: number, column: string) => grid(page).locator(`tr[data-record-id="${id}"] td[data-column="${column}"]`);

async function list(request: APIRequestContext, projectId: string, key: string, table: string): Promise<Record<string, unknown>[]> {
  const response = await request.get(`/v1/${projectId}/${table}?limit=100`, { headers: { Authorization: `Bearer ${key}` } });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { data: Record<string, unknown>[] }).data;
}

test('the record form, reference cells, import and delete tell the same story', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL });
  const p = await createApiProject(request, 'Data editing', schema);
  const api = { Authorization: `Bearer ${p.key}` };
  const authors = (await (await request.post(`/v1/${p.projectId}/authors`, {
    headers: api,
    data: [
      { name: 'Ada Lovelace', email: 'ada@example.com' },
      { name: 'Grace Hopper', email: 'grace@example.com' },
    ],
  })).json()) as { data: { id: number }[] };
  const [ada, grace] = authors.data.map((a) => a.id) as [number, number];
  const created = await request.post(`/v1/${p.projectId}/reviews`, { headers: api, data: { title: 'Notes on the engine', rating: 4, author_id: ada } });
  expect(created.status()).toBe(201);
  const review = ((await created.json()) as { data: { id: number } }).data.id;

  await page.setViewportSize(wide);
  await page.goto('/login');
  await page.evaluate((session) => localStorage.setItem('tablesmith.session', session), p.session);
  await page.goto(`/projects/${p.projectId}/data/reviews`);
  await expect(grid(page)).toBeVisible();

  // The cell editor's words for 9 in a column of at most 5.
  const cellMessage = 'must be at most 5';
  await test.step('the cell editor refuses 9 for a rating of at most 5', async () => {
    await cell(page, review, 'rating').dblclick();
    const rating = page.getByLabel(`rating of record ${review}`);
    await rating.fill('9');
    await rating.press('Enter');
    await expect(rating).toHaveAttribute('aria-invalid', 'true');
    await expect(rating).toHaveAccessibleDescription(new RegExp(cellMessage));
    await rating.press('Escape');
    await expect(cell(page, review, 'rating')).toHaveText('4');
  });

  await test.step('the record form refuses 9 with the same words and keeps the 9', async () => {
    await page.getByRole('button', { name: 'New record' }).click();
    const dialog = page.getByRole('dialog', { name: 'New record in reviews' });
    await dialog.getByRole('textbox', { name: 'title' }).fill('Too keen');
    const rating = dialog.getByRole('textbox', { name: 'rating' });
    await rating.fill('9');
    await dialog.getByRole('button', { name: 'Create record' }).click();
    await expect(rating).toHaveAttribute('aria-invalid', 'true');
    await expect(rating).toHaveAccessibleDescription(new RegExp(cellMessage));
    // Never clamped to 5, in the field or on the server.
    await expect(rating).toHaveValue('9');
    expect((await list(request, p.projectId, p.key, 'reviews')).map((r) => r.title)).toEqual(['Notes on the engine']);
    await checkPage(page, 'data-editing-01-form-refuses-1440');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
  });

  await test.step('a double-click on a reference cell opens its editor, not its link', async () => {
    const before = page.url();
    await cell(page, review, 'author_id').dblclick();
    await expect(page.getByRole('textbox', { name: `author_id of record ${review}` })).toBeVisible();
    expect(page.url()).toBe(before);
    await page.keyboard.press('Escape');
    // The link is the arrow beside the label.
    await expect(cell(page, review, 'author_id').getByRole('link', { name: /Open authors/ })).toBeVisible();
  });

  await test.step('an import lists every problem at once, each with its row, and marks those rows', async () => {
    const file = join(artifactsDir, 'data-editing-import.json');
    await writeFile(
      file,
      JSON.stringify([
        { title: 'Fine', rating: 3, author_id: grace },
        { title: 'Too high', rating: 9 },
        { rating: 2 },
        { title: 'Fine too', rating: 5 },
      ]),
    );
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import into reviews' });
    const choosing = page.waitForEvent('filechooser');
    await dialog.getByLabel('CSV or JSON file').click();
    await (await choosing).setFiles(file);
    await dialog.getByRole('button', { name: 'Import 4 rows' }).click();
    const problems = dialog.getByTestId('import-problems');
    await expect(problems).toContainText(/Row 2 · rating: must be at most 5/);
    await expect(problems).toContainText(/Row 3 · title: .+/);
    await expect(problems.locator('li')).toHaveCount(2);
    await expect(dialog.getByRole('alert')).toContainText('2 problems in 2 rows');
    for (const [row, marked] of [[1, false], [2, true], [3, true], [4, false]] as const) {
      if (marked) await expect(dialog.getByTestId(`import-row-${row}`)).toHaveAttribute('data-problem', 'true');
      else await expect(dialog.getByTestId(`import-row-${row}`)).not.toHaveAttribute('data-problem', 'true');
    }
    expect(await list(request, p.projectId, p.key, 'reviews')).toHaveLength(1);
    await checkPage(page, 'data-editing-02-import-problems-1440');
    await page.setViewportSize(narrow);
    await checkPage(page, 'data-editing-03-import-problems-390');
    await page.setViewportSize(wide);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
  });

  await test.step('a refused delete of a referenced author says why, and not "deleted for good"', async () => {
    await page.getByRole('tab', { name: 'authors' }).click();
    await page.getByRole('button', { name: `Delete record ${ada}` }).click();
    const dialog = page.getByRole('dialog', { name: `Delete authors #${ada}?` });
    await expect(dialog).toContainText('deleted for good');
    await dialog.getByRole('button', { name: 'Delete record' }).click();
    await expect(dialog.getByRole('alert')).toContainText('The record was not deleted');
    await expect(dialog.getByRole('alert')).toContainText(/referenced|reviews/i);
    await expect(dialog).not.toContainText('deleted for good');
    expect((await list(request, p.projectId, p.key, 'authors')).map((a) => a.id)).toContain(ada);
    await checkPage(page, 'data-editing-04-delete-refused-1440');
    await page.setViewportSize(narrow);
    await checkPage(page, 'data-editing-05-delete-refused-390');
  });
  await request.dispose();
});

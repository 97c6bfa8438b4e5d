// The Data page as a table editor (issue 20 item 11), on a real generated
// project: authors and books with a foreign key between them, rows put in
// through the generated API. Each step does what a person does in the grid
// and checks the outcome in the page and, where it matters, on the server.
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { artifactsDir, checkPage, snapshot } from './support';

// Local time is checked in a zone with a half-hour offset: 03:04:05Z is 08:34:05 there.
test.use({ timezoneId: 'Asia/Kolkata', locale: 'en-GB', viewport: { width: 1440, height: 900 } });

const schema = {
  tables: [
    {
      name: 'authors',
      columns: [
        { name: 'name', type: 'text', required: true, searchable: true },
        { name: 'email', type: 'email', required: true, unique: true },
      ],
    },
    {
      name: 'books',
      columns: [
        { name: 'title', type: 'text', required: true, searchable: true },
        { name: 'price', type: 'decimal', min: 0 },
        { name: 'published_at', type: 'timestamp' },
        { name: 'author_id', type: 'integer', references: { table: 'authors', on_delete: 'cascade' } },
        { name: 'pages', type: 'integer', min: 1 },
        { name: 'genre', type: 'enum', values: ['fiction', 'poetry', 'science'] },
        { name: 'isbn', type: 'text', pattern: '^[0-9-]{10,17}$' },
        { name: 'in_print', type: 'boolean' },
        { name: 'language', type: 'text' },
        { name: 'publisher', type: 'text' },
        { name: 'notes', type: 'text' },
      ],
    },
  ],
};

interface Fixture {
  projectId: string;
  session: string;
  key: string;
  authors: { ada: number; grace: number };
  books: Record<string, number>;
}

async function envelope<T>(response: Awaited<ReturnType<APIRequestContext['get']>>, what: string): Promise<T> {
  expect(response.ok(), `${what} answered ${response.status()}: ${await response.text()}`).toBeTruthy();
  return ((await response.json()) as { data: T }).data;
}

/** A fresh account and a generated project with rows, made through the platform and generated APIs. */
async function setUp(request: APIRequestContext): Promise<Fixture> {
  const stamp = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
  const signup = await envelope<{ token: string }>(
    await request.post('/api/auth/signup', { data: { email: `grid.${stamp}@example.com`, password: 'correct-horse-battery', name: 'Grid Person' } }),
    'signup',
  );
  const auth = { Authorization: `Bearer ${signup.token}` };
  const project = await envelope<{ id: string }>(await request.post('/api/projects', { headers: auth, data: { name: 'Library', engine: 'postgres' } }), 'create project');
  await envelope(await request.put(`/api/projects/${project.id}/schema`, { headers: auth, data: schema }), 'save schema');
  await envelope(await request.post(`/api/projects/${project.id}/generate`, { headers: auth, data: {} }), 'generate');
  const key = await envelope<{ key: string }>(await request.post(`/api/projects/${project.id}/keys`, { headers: auth, data: { name: 'grid', scope: 'read_write' } }), 'create key');
  const api = { Authorization: `Bearer ${key.key}` };
  const authors = await envelope<{ id: number }[]>(
    await request.post(`/v1/${project.id}/authors`, {
      headers: api,
      data: [
        { name: 'Ada Lovelace', email: 'ada@example.com' },
        { name: 'Grace Hopper', email: 'grace@example.com' },
      ],
    }),
    'insert authors',
  );
  const [ada, grace] = authors.map((a) => a.id) as [number, number];
  const books = await envelope<{ id: number; title: string }[]>(
    await request.post(`/v1/${project.id}/books`, {
      headers: api,
      data: [
        { title: 'Alpha', price: '12345678901234567890.10', published_at: '2026-01-02T03:04:05Z', author_id: ada, pages: 100, genre: 'fiction' },
        { title: 'Beta', price: '5.50', author_id: grace, pages: 300, genre: 'poetry' },
        { title: 'Gamma', price: '20.00', author_id: ada, pages: 200, genre: 'poetry' },
        { title: 'Delta', price: '1.00', author_id: grace, pages: 50, genre: 'science' },
        { title: 'Epsilon', price: '2.00', author_id: grace, pages: 60, genre: 'science' },
      ],
    }),
    'insert books',
  );
  return { projectId: project.id, session: signup.token, key: key.key, authors: { ada, grace }, books: Object.fromEntries(books.map((b) => [b.title, b.id])) };
}

async function openData(page: Page, f: Fixture, table: string): Promise<void> {
  await page.goto('/login');
  await page.evaluate(({ f }) => {
    localStorage.setItem('tablesmith.session', f.session);
    localStorage.setItem(`tablesmith.keys.${f.projectId}`, JSON.stringify([{ id: 'grid-key', name: 'grid', secret: f.key, scope: 'read_write' }]));
  }, { f });
  await page.goto(`/projects/${f.projectId}/data/${table}`);
  await expect(grid(page)).toBeVisible();
}

const grid = (page: Page) => page.getByTestId('records-table');
const row = (page: Page, id: number) => grid(page).locator(`tr[data-record-id="${id}"]`);
const cell = (page: Page, id: number, column: string) => row(page, id).locator(`td[data-column="${column}"]`);

async function titlesInOrder(page: Page): Promise<string[]> {
  return grid(page).locator('tbody td[data-column="title"]').allInnerTexts();
}

async function listFromApi(request: APIRequestContext, f: Fixture, table: string, query = ''): Promise<Record<string, unknown>[]> {
  return envelope<Record<string, unknown>[]>(await request.get(`/v1/${f.projectId}/${table}?limit=100${query}`, { headers: { Authorization: `Bearer ${f.key}` } }), `list ${table}`);
}

async function addFilter(page: Page, column: string, operator: string, value: string): Promise<void> {
  await page.getByRole('button', { name: 'Add filter' }).click();
  const form = page.getByRole('form', { name: 'New filter' });
  await form.getByLabel('Column').selectOption(column);
  await form.getByLabel('Operator').selectOption({ label: operator });
  const valueField = form.getByLabel('Value');
  if ((await valueField.evaluate((el) => el.tagName)) === 'SELECT') await valueField.selectOption(value);
  else await valueField.fill(value);
  await form.getByRole('button', { name: 'Apply filter' }).click();
  await expect(form).toBeHidden();
}

async function download(page: Page, format: 'CSV (.csv)' | 'JSON (.json)'): Promise<{ name: string; text: string }> {
  await page.getByRole('button', { name: 'Export' }).click();
  const downloading = page.waitForEvent('download');
  await page.getByRole('menuitem', { name: format }).click();
  const file = await downloading;
  return { name: file.suggestedFilename(), text: await readFile((await file.path())!, 'utf8') };
}

/** Scrolls the grid's horizontal scroll box to `left`; returns its extent. */
async function scrollAcross(page: Page, left: number) {
  return grid(page).evaluate((table, to) => {
    let box: HTMLElement | null = table.parentElement;
    while (box && !['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) box = box.parentElement;
    if (!box) throw new Error('the grid has no horizontal scroll box');
    box.scrollLeft = to;
    return { scrollWidth: box.scrollWidth, clientWidth: box.clientWidth, scrollLeft: box.scrollLeft };
  }, left);
}

/** Picks a file with the dialog's file button, as a person does. */
async function chooseFile(page: Page, dialog: Locator, path: string) {
  const choosing = page.waitForEvent('filechooser');
  await dialog.getByLabel('CSV or JSON file').click();
  await (await choosing).setFiles(path);
}

async function expectInView(locator: Locator) {
  await expect(locator).toBeInViewport();
}

test('the Data page edits, links, sorts, filters, selects, imports and exports records', async ({ page, request }) => {
  const f = await setUp(request);
  await openData(page, f, 'books');

  await test.step('decimals are exact and timestamps local, with the ISO value on hover', async () => {
    await expect(cell(page, f.books.Alpha!, 'price')).toHaveText('12345678901234567890.10');
    await expect(cell(page, f.books.Gamma!, 'price')).toHaveText('20.00');
    const published = cell(page, f.books.Alpha!, 'published_at');
    await expect(published).toContainText('08:34:05');
    await expect(published).toContainText('2 Jan 2026');
    await expect(published).toHaveAttribute('title', /^2026-01-02T03:04:05(\.0+)?Z$/);
    await checkPage(page, 'data-browser-1440');
  });

  await test.step('the Actions column stays in view on a wide table, also after scrolling across', async () => {
    const wide = await scrollAcross(page, 0);
    expect(wide.scrollWidth, 'the books table is wider than its box').toBeGreaterThan(wide.clientWidth);
    await expectInView(page.getByRole('button', { name: `Edit record ${f.books.Alpha}` }));
    const scrolled = await scrollAcross(page, wide.scrollWidth);
    expect(scrolled.scrollLeft).toBeGreaterThan(0);
    await expectInView(page.getByRole('button', { name: `Edit record ${f.books.Alpha}` }));
    await expectInView(page.getByRole('button', { name: `Delete record ${f.books.Gamma}` }));
    await expectInView(cell(page, f.books.Alpha!, 'notes'));
    await snapshot(page, 'data-browser-scrolled-1440');
    await scrollAcross(page, 0);
  });

  await test.step('clicking a header sorts, and clicking again turns the order around', async () => {
    const pagesHeader = grid(page).locator('thead th').filter({ hasText: 'pages' });
    await pagesHeader.getByRole('button').click();
    await expect(pagesHeader).toHaveAttribute('aria-sort', 'ascending');
    await expect.poll(() => titlesInOrder(page)).toEqual(['Delta', 'Epsilon', 'Alpha', 'Gamma', 'Beta']);
    await pagesHeader.getByRole('button').click();
    await expect(pagesHeader).toHaveAttribute('aria-sort', 'descending');
    await expect.poll(() => titlesInOrder(page)).toEqual(['Beta', 'Gamma', 'Alpha', 'Epsilon', 'Delta']);
  });

  await test.step('two filters narrow the rows together, and the export downloads those rows', async () => {
    await addFilter(page, 'genre', 'equals', 'poetry');
    await expect.poll(() => titlesInOrder(page)).toEqual(['Beta', 'Gamma']);
    await addFilter(page, 'pages', '≥', '250');
    await expect.poll(() => titlesInOrder(page)).toEqual(['Beta']);
    await expect(page.getByTestId('filter-chip')).toHaveText(['genre equals poetry', 'pages ≥ 250']);
    await snapshot(page, 'data-browser-filters-1440');

    const csv = await download(page, 'CSV (.csv)');
    expect(csv.name).toBe('books.csv');
    const lines = csv.text.trim().split(/\r?\n/);
    expect(lines[0]).toContain('title');
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toContain('Beta');
    expect(lines[1]).toContain('5.50');

    await page.getByRole('button', { name: 'Remove filter pages ≥ 250' }).click();
    await expect.poll(() => titlesInOrder(page)).toEqual(['Beta', 'Gamma']);
    const json = await download(page, 'JSON (.json)');
    expect(json.name).toBe('books.json');
    const exported = JSON.parse(json.text) as { title: string }[];
    // The page's sort (pages descending) is the export's order.
    expect(exported.map((b) => b.title)).toEqual(['Beta', 'Gamma']);
    expect(json.text).toContain('"price":20.00');

    await page.getByRole('button', { name: 'Remove filter genre equals poetry' }).click();
    await expect.poll(() => titlesInOrder(page)).toHaveLength(5);
  });

  await test.step('a cell is edited in place, checked first by the column rules, and saved', async () => {
    await cell(page, f.books.Gamma!, 'title').dblclick();
    const title = page.getByLabel(`title of record ${f.books.Gamma}`);
    await title.fill('Gamma revised');
    await title.press('Enter');
    await expect(cell(page, f.books.Gamma!, 'title')).toHaveText('Gamma revised');
    // Focus is back on the cell: the keyboard goes on from there.
    await expect(cell(page, f.books.Gamma!, 'title')).toBeFocused();

    // By keyboard: Enter opens the editor; the column's min is checked before sending.
    await cell(page, f.books.Gamma!, 'pages').focus();
    await page.keyboard.press('Enter');
    const pages = page.getByLabel(`pages of record ${f.books.Gamma}`);
    await pages.fill('0');
    await pages.press('Enter');
    await expect(pages).toHaveAttribute('aria-invalid', 'true');
    await expect(pages).toHaveAccessibleDescription('pages must be at least 1');
    await pages.press('Escape');
    await expect(cell(page, f.books.Gamma!, 'pages')).toHaveText('200');
    await expect(cell(page, f.books.Gamma!, 'pages')).toBeFocused();
    // Arrow keys move between cells.
    await page.keyboard.press('ArrowLeft');
    await expect(cell(page, f.books.Gamma!, 'author_id')).toBeFocused();
    await page.keyboard.press('ArrowUp');
    await expect(row(page, f.books.Gamma!).locator('xpath=preceding-sibling::tr[1]').locator('td[data-column="author_id"]')).toBeFocused();

    await page.reload();
    await expect(cell(page, f.books.Gamma!, 'title')).toHaveText('Gamma revised');
    const [stored] = await listFromApi(request, f, 'books', `&filter[id]=${f.books.Gamma}`);
    expect(stored?.title).toBe('Gamma revised');
    expect(stored?.pages).toBe(200);
  });

  await test.step('a foreign-key cell picks a record of the referenced table and links to it', async () => {
    const author = cell(page, f.books.Beta!, 'author_id');
    await expect(author).toHaveText('#' + f.authors.grace + ' · Grace Hopper');
    await author.focus();
    await page.keyboard.press('Enter');
    const picker = page.getByRole('textbox', { name: `author_id of record ${f.books.Beta}` });
    await picker.fill('lovelace');
    await page.getByRole('option', { name: `#${f.authors.ada} · Ada Lovelace` }).click();
    await expect(author).toHaveText(`#${f.authors.ada} · Ada Lovelace`);
    const [beta] = await listFromApi(request, f, 'books', `&filter[id]=${f.books.Beta}`);
    expect(beta?.author_id).toBe(f.authors.ada);

    await author.getByRole('link').click();
    await expect(page).toHaveURL(new RegExp(`/data/authors\\?filter\\[id\\]=${f.authors.ada}$`));
    await expect(page.getByTestId('filter-chip')).toHaveText([`id equals ${f.authors.ada}`]);
    await expect(grid(page).locator('tbody tr')).toHaveCount(1);
    await expect(cell(page, f.authors.ada, 'name')).toHaveText('Ada Lovelace');
  });

  await test.step("the server's field error is shown in place", async () => {
    await page.getByRole('tab', { name: 'authors' }).click();
    await cell(page, f.authors.grace, 'email').dblclick();
    const email = page.getByLabel(`email of record ${f.authors.grace}`);
    await email.fill('ada@example.com');
    await email.press('Enter');
    // Unique: only the server can tell, and it names the field.
    await expect(email).toHaveAttribute('aria-invalid', 'true');
    await expect(email).toHaveAccessibleDescription(/already exists/);
    await snapshot(page, 'data-browser-server-error-1440');
    await email.press('Escape');
    await expect(cell(page, f.authors.grace, 'email')).toHaveText('grace@example.com');
  });

  await test.step('an import with one bad row writes nothing and shows that row; a good file writes every row', async () => {
    const bad = join(artifactsDir, 'data-browser-import-bad.json');
    await writeFile(bad, JSON.stringify([{ name: 'Katherine Johnson', email: 'katherine@example.com' }, { name: 'Broken', email: 'not-an-email' }]));
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import into authors' });
    await chooseFile(page, dialog, bad);
    await expect(dialog.getByLabel('File column "email"')).toHaveValue('email');
    await expect(dialog.getByTestId('import-preview')).toContainText('not-an-email');
    await dialog.getByRole('button', { name: 'Import 2 rows' }).click();
    await expect(dialog.getByTestId('import-problems')).toContainText(/Row 2 · email: .+/);
    await expect(dialog.getByTestId('import-problems')).not.toContainText('Row 1');
    await checkPage(page, 'data-browser-import-error-1440');
    expect((await listFromApi(request, f, 'authors')).map((a) => a.name)).toEqual(['Ada Lovelace', 'Grace Hopper']);

    const good = join(artifactsDir, 'data-browser-import-good.csv');
    await writeFile(good, 'Name,E-mail\r\n"Johnson, Katherine",katherine@example.com\r\nDorothy Vaughan,dorothy@example.com\r\n');
    await chooseFile(page, dialog, good);
    await expect(dialog.getByLabel('File column "Name"')).toHaveValue('name');
    await dialog.getByLabel('File column "E-mail"').selectOption('email');
    await dialog.getByRole('button', { name: 'Import 2 rows' }).click();
    await expect(dialog).toBeHidden();
    await expect(grid(page)).toContainText('Johnson, Katherine');
    await expect(grid(page)).toContainText('dorothy@example.com');
    expect((await listFromApi(request, f, 'authors')).map((a) => a.name)).toEqual(['Ada Lovelace', 'Grace Hopper', 'Johnson, Katherine', 'Dorothy Vaughan']);
  });

  await test.step('selected rows are deleted together', async () => {
    await page.getByRole('tab', { name: 'books' }).click();
    await expect(grid(page).locator('tbody tr')).toHaveCount(5);
    await page.getByRole('checkbox', { name: `Select record ${f.books.Delta}` }).check();
    await page.getByRole('checkbox', { name: `Select record ${f.books.Epsilon}` }).check();
    await expect(page.getByRole('region', { name: 'Selection' })).toContainText('2 selected');
    await page.getByRole('button', { name: 'Delete selected' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete 2 records from books?' });
    await confirm.getByRole('button', { name: 'Delete 2 records' }).click();
    await expect(confirm).toBeHidden();
    await expect(grid(page).locator('tbody tr')).toHaveCount(3);
    await expect(row(page, f.books.Delta!)).toHaveCount(0);
    const left = (await listFromApi(request, f, 'books')).map((b) => b.title);
    expect(left.sort()).toEqual(['Alpha', 'Beta', 'Gamma revised']);

    // "Select page" picks every row shown.
    await page.getByRole('checkbox', { name: 'Select every record on this page' }).check();
    await expect(page.getByRole('region', { name: 'Selection' })).toContainText('3 selected');
    await page.getByRole('button', { name: 'Clear the selection' }).click();
  });

  await test.step('the record form picks a reference by searching the referenced table', async () => {
    await page.getByRole('button', { name: 'New record' }).click();
    const dialog = page.getByRole('dialog', { name: 'New record in books' });
    await dialog.getByRole('textbox', { name: 'title' }).fill('Omega');
    await dialog.getByRole('textbox', { name: 'author_id' }).fill('hopper');
    await page.getByRole('option', { name: `#${f.authors.grace} · Grace Hopper` }).click();
    await dialog.getByRole('button', { name: 'Create record' }).click();
    await expect(dialog).toBeHidden();
    const [omega] = await listFromApi(request, f, 'books', '&filter[title]=Omega');
    expect(omega?.author_id).toBe(f.authors.grace);
  });

  await test.step('the page works on a phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(grid(page)).toBeVisible();
    await expectInView(page.getByRole('button', { name: `Edit record ${f.books.Alpha}` }));
    await checkPage(page, 'data-browser-390');
  });
});

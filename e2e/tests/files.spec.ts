// File columns (issue 40): in the Data page a PNG is uploaded through the
// record form (multipart/form-data), its preview loads with the
// credential that reads the record, it downloads byte for byte, is
// replaced and removed; a file the column does not take is refused at the
// field, one over max_size before any request. The builder shows a file
// column's settings (max size with a unit, allowed types, max files) and
// none of unique, index or default, and flags a bad media type with the
// server's words. Screenshots: e2e/artifacts/files-*.png, axe on each.
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { baseURL } from '../playwright.config';
import { checkPage, createApiProject, platformGet } from './support';

// A 3x2 red PNG and a 4x4 blue one: the preview's natural width tells which is shown.
const red = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGM4IScHQQxwFgBBAAYZPEVBlgAAAABJRU5ErkJggg==', 'base64');
const blue = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGOQszkBRwzEcQDM4xIhBMI9HwAAAABJRU5ErkJggg==', 'base64');
const MB = 1024 * 1024;

const schema = {
  tables: [
    {
      name: 'albums',
      columns: [
        { name: 'title', type: 'text', required: true },
        { name: 'cover', type: 'file', mime_types: ['image/*'], max_size: MB },
      ],
    },
  ],
};

interface StoredFile {
  name: string;
  size: number;
  type: string;
  url: string;
}
type Album = { id: number; title: string; cover: StoredFile | null; photos?: StoredFile[] | null };

// The data browser's table also has a list of files.
const withPhotos = {
  tables: [{ ...schema.tables[0]!, columns: [...schema.tables[0]!.columns, { name: 'photos', type: 'files', max_files: 2 }] }],
};

const grid = (page: Page) => page.getByTestId('records-table');
const cell = (page: Page, id: number, column: string) => grid(page).locator(`tr[data-record-id="${id}"] td[data-column="${column}"]`);

async function albums(request: APIRequestContext, projectId: string, key: string): Promise<Album[]> {
  const response = await request.get(`/v1/${projectId}/albums?limit=100&sort=id`, { headers: { Authorization: `Bearer ${key}` } });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { data: Album[] }).data;
}

/** Chooses a file in a file input the way a person does: the input opens the chooser. */
async function chooseFile(page: Page, input: Locator, file: { name: string; mimeType: string; buffer: Buffer } | { name: string; mimeType: string; buffer: Buffer }[]) {
  const choosing = page.waitForEvent('filechooser');
  await input.click();
  await (await choosing).setFiles(file);
}

/** The width of the image as decoded: more than 0 once it loaded. */
async function expectLoaded(image: Locator, width: number) {
  await expect(image).toBeVisible();
  await expect
    .poll(() => image.evaluate((el) => ((el as HTMLImageElement).complete ? (el as HTMLImageElement).naturalWidth : 0)), { timeout: 30_000 })
    .toBe(width);
}

test('a PNG is uploaded, previewed, downloaded, replaced and removed in the data browser', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL });
  const p = await createApiProject(request, 'Files', withPhotos);
  const key = { Authorization: `Bearer ${p.key}` };

  await page.goto('/login');
  await page.evaluate((session) => localStorage.setItem('tablesmith.session', session), p.session);
  await page.goto(`/projects/${p.projectId}/data/albums`);
  await expect(page.getByText('No albums yet')).toBeVisible();

  let album: Album | undefined;
  await test.step('a file over max_size is refused before any request, a text file by the server', async () => {
    await page.getByRole('button', { name: 'New record' }).click();
    const dialog = page.getByRole('dialog', { name: 'New record in albums' });
    await dialog.getByRole('textbox', { name: 'title' }).fill('Not a picture');
    const cover = dialog.getByLabel('cover', { exact: true });
    await expect(cover).toHaveAccessibleDescription(/image\/\* · at most 1 MB/);

    await chooseFile(page, cover, { name: 'huge.png', mimeType: 'image/png', buffer: Buffer.concat([red, Buffer.alloc(MB)]) });
    await dialog.getByRole('button', { name: 'Create record' }).click();
    await expect(cover).toHaveAttribute('aria-invalid', 'true');
    await expect(cover).toHaveAccessibleDescription(new RegExp(`is ${red.length + MB} bytes, more than the column's max_size of ${MB}`));

    await chooseFile(page, cover, { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('plain words, not an image\n') });
    await dialog.getByRole('button', { name: 'Create record' }).click();
    await expect(dialog.getByRole('alert')).toContainText('The record was not saved');
    await expect(cover).toHaveAccessibleDescription(/is text\/plain, which the column does not take \(image\/\*\)/);
    expect(await albums(request, p.projectId, p.key)).toEqual([]);
    await checkPage(page, 'files-01-refused-type');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
  });

  await test.step('a PNG chosen in the create form is uploaded, and its preview loads', async () => {
    await page.getByRole('button', { name: 'New record' }).click();
    const dialog = page.getByRole('dialog', { name: 'New record in albums' });
    await dialog.getByRole('textbox', { name: 'title' }).fill('Red album');
    await chooseFile(page, dialog.getByLabel('cover', { exact: true }), { name: 'Red Cover.png', mimeType: 'image/png', buffer: red });
    await dialog.getByRole('button', { name: 'Create record' }).click();
    await expect(dialog).toBeHidden();

    const rows = await albums(request, p.projectId, p.key);
    expect(rows).toHaveLength(1);
    album = rows[0]!;
    expect(album.title).toBe('Red album');
    expect(album.cover).toMatchObject({ size: red.length, type: 'image/png' });
    expect(album.cover!.name).toMatch(/^red_cover_[a-z2-7]+\.png$/);
    expect(album.cover!.url).toBe(`/v1/${p.projectId}/albums/${album.id}/files/cover/${album.cover!.name}`);
    await expectLoaded(cell(page, album.id, 'cover').getByRole('img', { name: album.cover!.name }), 3);
    await checkPage(page, 'files-02-preview');
  });

  await test.step('the preview downloads the file as it was uploaded', async () => {
    const downloading = page.waitForEvent('download');
    await cell(page, album!.id, 'cover').getByRole('link', { name: album!.cover!.name }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(album!.cover!.name);
    expect((await readFile(await download.path())).equals(red)).toBe(true);
    // The same bytes from the API with the key: the URL needs the credential the record needs.
    const direct = await request.get(album!.cover!.url, { headers: key });
    expect(direct.status()).toBe(200);
    expect((await direct.body()).equals(red)).toBe(true);
  });

  const oldUrl = () => album!.cover!.url;
  await test.step('the edit form shows the file and replaces it with another PNG', async () => {
    await page.getByRole('button', { name: `Edit record ${album!.id}` }).click();
    const dialog = page.getByRole('dialog', { name: `Edit albums #${album!.id}` });
    await expectLoaded(dialog.getByRole('img', { name: album!.cover!.name }), 3);
    await expect(dialog.getByRole('button', { name: 'Remove file' })).toBeVisible();
    await checkPage(page, 'files-03-edit-form');
    await chooseFile(page, dialog.getByLabel('cover', { exact: true }), { name: 'blue.png', mimeType: 'image/png', buffer: blue });
    await expect(dialog.getByText('Replaced when you save:')).toBeVisible();
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect(dialog).toBeHidden();

    const [replaced] = await albums(request, p.projectId, p.key);
    expect(replaced!.cover!.name).toMatch(/^blue_[a-z2-7]+\.png$/);
    expect(replaced!.title).toBe('Red album');
    await expectLoaded(cell(page, album!.id, 'cover').getByRole('img', { name: replaced!.cover!.name }), 4);
    // The replaced file is gone.
    expect((await request.get(oldUrl(), { headers: key })).status()).toBe(404);
    album = replaced;
  });

  await test.step('Remove file saves the column as null', async () => {
    await page.getByRole('button', { name: `Edit record ${album!.id}` }).click();
    const dialog = page.getByRole('dialog', { name: `Edit albums #${album!.id}` });
    await dialog.getByRole('button', { name: 'Remove file' }).click();
    await expect(dialog.getByText('Removed when you save:')).toBeVisible();
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect(dialog).toBeHidden();
    await expect(cell(page, album!.id, 'cover')).toHaveText('—');
    const [removed] = await albums(request, p.projectId, p.key);
    expect(removed!.cover).toBeNull();
    expect((await request.get(oldUrl(), { headers: key })).status()).toBe(404);
  });

  await test.step('a files column takes several files in one write; one that is no image downloads by its name', async () => {
    const notes = Buffer.from('liner notes\n');
    await page.getByRole('button', { name: `Edit record ${album!.id}` }).click();
    const dialog = page.getByRole('dialog', { name: `Edit albums #${album!.id}` });
    await chooseFile(page, dialog.getByLabel('photos', { exact: true }), [
      { name: 'one.png', mimeType: 'image/png', buffer: blue },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: notes },
    ]);
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect(dialog).toBeHidden();
    const [withList] = await albums(request, p.projectId, p.key);
    const [one, text] = withList!.photos!;
    expect(one!.name).toMatch(/^one_[a-z2-7]+\.png$/);
    expect(text).toMatchObject({ type: 'text/plain', size: notes.length });
    const photos = cell(page, album!.id, 'photos');
    await expectLoaded(photos.getByRole('img', { name: one!.name }), 4);
    const downloading = page.waitForEvent('download');
    await photos.getByRole('button', { name: text!.name }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(text!.name);
    expect((await readFile(await download.path())).equals(notes)).toBe(true);
    await checkPage(page, 'files-06-files-column');
  });

  await test.step('the project card and analytics say what its files hold', async () => {
    await page.goto('/projects');
    await expect(page.getByTestId('project-files').first()).toContainText(/\d+(\.\d)? (bytes|KB|MB) of files/);
    await checkPage(page, 'files-07-project-card');
    await page.goto(`/projects/${p.projectId}/analytics`);
    await expect(page.getByTestId('file-storage-meter')).toContainText(/\d+(\.\d)? (bytes|KB|MB)/);
    await checkPage(page, 'files-08-analytics');
  });
});

test('the builder shows a file column’s settings and the server’s words for a bad media type', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL });
  const p = await createApiProject(request, 'File settings', schema);
  await page.goto('/login');
  await page.evaluate((session) => localStorage.setItem('tablesmith.session', session), p.session);
  await page.goto(`/projects/${p.projectId}/schema`);
  await page.getByTestId('table-node-albums').click();
  await expect(page.getByLabel('Table name')).toHaveValue('albums');

  const cover = page.getByTestId('column-cover');
  await page.getByRole('button', { name: 'Show constraints of cover' }).click();
  const maxSize = cover.getByRole('textbox', { name: 'Max size per file' });
  await expect(maxSize).toHaveValue('1');
  await expect(cover.getByRole('combobox', { name: 'Max size unit (cover)' })).toHaveValue('MB');
  for (const absent of ['Unique (cover)', 'Index (cover)', 'Searchable (cover)']) {
    await expect(cover.getByRole('checkbox', { name: absent })).toHaveCount(0);
  }
  await expect(cover.getByRole('textbox', { name: 'Default' })).toHaveCount(0);
  await expect(cover.getByRole('textbox', { name: 'Max files' })).toHaveCount(0);

  await test.step('a bad media type is flagged at the field with the server words', async () => {
    const types = cover.getByRole('textbox', { name: 'Allowed types' });
    await types.fill('images');
    await types.press('Enter');
    await expect(types).toHaveAttribute('aria-invalid', 'true');
    await expect(types).toHaveAccessibleDescription(/"images" is not a media type such as image\/png or image\/\*/);
    await expect(page.getByText('1 problem to fix before generating')).toBeVisible();
    await checkPage(page, 'files-04-builder-bad-type');
    await cover.getByRole('button', { name: 'Images only (cover)' }).click();
    await expect(types).not.toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByText(/problems? to fix/)).toHaveCount(0);
  });

  await test.step('max size is typed with a unit and kept in bytes; a files column takes max files', async () => {
    await maxSize.fill('2.5');
    await page.getByRole('button', { name: 'Add column' }).click();
    await page.getByLabel('Column 3 name').fill('photos');
    await page.getByLabel('Column 3 type').selectOption('files');
    await page.getByRole('button', { name: 'Show constraints of photos' }).click();
    const photos = page.getByTestId('column-photos');
    const maxFiles = photos.getByRole('textbox', { name: 'Max files' });
    await maxFiles.fill('101');
    await expect(maxFiles).toHaveAttribute('aria-invalid', 'true');
    await expect(maxFiles).toHaveAccessibleDescription(/must be between 1 and 100/);
    await maxFiles.fill('5');
    const unit = photos.getByRole('combobox', { name: 'Max size unit (photos)' });
    await unit.click({ trial: true }); // a person can reach it: nothing covers it
    await unit.selectOption('KB');
    await photos.getByRole('textbox', { name: 'Max size per file' }).fill('300');
    await expect(page.getByText(/problems? to fix/)).toHaveCount(0);
    await expect(page.getByText('The server accepts this schema.')).toBeVisible({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Schema saved')).toBeVisible();

    const saved = await platformGet<{ tables: { name: string; columns: Record<string, unknown>[] }[] }>(page, `/api/projects/${p.projectId}/schema`);
    const columns = saved.tables.find((t) => t.name === 'albums')!.columns;
    expect(columns.find((c) => c.name === 'cover')).toMatchObject({ type: 'file', max_size: 2.5 * MB, mime_types: ['image/*'] });
    expect(columns.find((c) => c.name === 'photos')).toMatchObject({ type: 'files', max_size: 300 * 1024, max_files: 5 });
    await checkPage(page, 'files-05-builder-settings');
  });
});

// The request tester sends files (docs/files.md): on the Test page a
// create of a table with a file and a files column switches to "Form with
// files", sends multipart/form-data with a field, a PNG and two files, and
// answers 201 with the record's file objects; the copied curl (-F parts,
// the files read from where it runs) creates a record too. The upload
// operation takes a file and answers its token; the download shows its
// answer as bytes with the image's preview. Screenshots:
// e2e/artifacts/tester-files-*.png, axe on each.
import { expect, test, type Locator, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseURL } from '../playwright.config';
import { checkPage, createApiProject } from './support';

// A 3x2 red PNG and a 4x4 blue one: the preview's natural width tells which is shown.
const red = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGM4IScHQQxwFgBBAAYZPEVBlgAAAABJRU5ErkJggg==', 'base64');
const blue = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGOQszkBRwzEcQDM4xIhBMI9HwAAAABJRU5ErkJggg==', 'base64');

const schema = {
  tables: [
    {
      name: 'albums',
      columns: [
        { name: 'title', type: 'text', required: true },
        { name: 'year', type: 'integer', min: 1900, max: 2100 },
        { name: 'cover', type: 'file', mime_types: ['image/*'], max_size: 1024 * 1024 },
        { name: 'photos', type: 'files', max_files: 3 },
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
type Album = { id: number; title: string; year: number | null; cover: StoredFile | null; photos: StoredFile[] | null };

/** Chooses files in a file input the way a person does: the input opens the chooser. */
async function chooseFile(page: Page, input: Locator, files: { name: string; mimeType: string; buffer: Buffer }[]) {
  const choosing = page.waitForEvent('filechooser');
  await input.click();
  await (await choosing).setFiles(files);
}

/** What the copy button put on the clipboard, once it holds `expected` (a copy writes asynchronously). */
async function copied(page: Page, expected: string): Promise<string> {
  const read = () => page.evaluate(() => navigator.clipboard.readText());
  await expect.poll(read).toContain(expected);
  return read();
}

/** Runs a copied curl command in bash in `dir` and returns the HTTP status it got and the answer's body. */
function runCurl(command: string, dir: string): { status: string; body: string } {
  const out = execFileSync('bash', ['-c', `${command} -s -w '\\n%{http_code}'`], { encoding: 'utf8', cwd: dir });
  const at = out.lastIndexOf('\n');
  return { status: out.slice(at + 1), body: out.slice(0, at) };
}

async function expectStatus(page: Page, status: string) {
  const badge = page.getByTestId('response-status');
  await expect(badge).toBeVisible();
  await expect(badge, `answered: ${(await page.getByTestId('response-body').innerText()).slice(0, 600)}`).toContainText(status);
}

test('a form with files is sent from the Test page, and its copied curl runs', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL });
  const p = await createApiProject(request, 'Tester files', schema);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  await page.setViewportSize({ width: 1440, height: 900 });
  // The key as the dashboard remembers one it made: under the server's id.
  const keys = (await (await request.get(`/api/projects/${p.projectId}/keys`, { headers: { Authorization: `Bearer ${p.session}` } })).json()) as {
    data: { id: string }[];
  };
  const keyId = keys.data[0]!.id;
  await page.goto('/login');
  await page.evaluate(({ session, projectId, key, keyId }) => {
    localStorage.setItem('tablesmith.session', session);
    localStorage.setItem(`tablesmith.keys.${projectId}`, JSON.stringify([{ id: keyId, name: 'e2e', secret: key, scope: 'read_write' }]));
    localStorage.setItem('tablesmith.snippet-language', 'curl');
  }, { ...p, keyId });

  let album: Album | undefined;
  await test.step('POST /albums as a form with a field, a PNG and two photos answers 201 with the files', async () => {
    await page.goto(`/projects/${p.projectId}/test?op=${encodeURIComponent('POST /albums')}`);
    await page.getByLabel('Send with key').selectOption(keyId);
    await expect(page.getByRole('heading', { name: 'JSON body' })).toBeVisible();
    await page.getByRole('radiogroup', { name: 'Body' }).getByText('Form with files', { exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Form body' })).toBeVisible();
    const title = page.getByRole('textbox', { name: 'title' });
    // The form starts from the JSON example.
    await expect(title).not.toHaveValue('');
    await title.fill('Red album');
    await page.getByRole('textbox', { name: 'year' }).fill('1999');
    const cover = page.getByLabel('cover', { exact: true });
    await expect(cover).toHaveAccessibleDescription(/image\/\* · at most 1 MB/);
    await chooseFile(page, cover, [{ name: 'red.png', mimeType: 'image/png', buffer: red }]);
    await chooseFile(page, page.getByLabel('photos', { exact: true }), [
      { name: 'red.png', mimeType: 'image/png', buffer: red },
      { name: 'blue.png', mimeType: 'image/png', buffer: blue },
    ]);
    await page.getByRole('button', { name: 'Send' }).click();
    await expectStatus(page, '201');
    album = (JSON.parse(await page.getByTestId('response-body').innerText()) as { data: Album }).data;
    expect(album.title).toBe('Red album');
    expect(album.year).toBe(1999);
    expect(album.cover).toMatchObject({ size: red.length, type: 'image/png' });
    expect(album.cover!.name).toMatch(/^red_[a-z2-7]+\.png$/);
    expect(album.cover!.url).toBe(`/v1/${p.projectId}/albums/${album.id}/files/cover/${album.cover!.name}`);
    expect(album.photos?.map((f) => [f.size, f.type])).toEqual([
      [red.length, 'image/png'],
      [blue.length, 'image/png'],
    ]);
    await checkPage(page, 'tester-files-01-form');
  });

  await test.step('the copied curl sends the same form, its files read from where it runs', async () => {
    const code = page.getByTestId('code-sample');
    await expect(code).toContainText(`-F 'cover=@red.png'`);
    await page.getByRole('button', { name: 'Copy curl' }).click();
    const curl = await copied(page, `-F 'photos=@blue.png'`);
    expect(curl).toContain(`-F 'title=Red album'`);
    expect(curl).toContain(`-F 'photos=@red.png'`);
    expect(curl).not.toContain('Content-Type: application/json');
    const dir = mkdtempSync(join(tmpdir(), 'tester-files-'));
    try {
      writeFileSync(join(dir, 'red.png'), red);
      writeFileSync(join(dir, 'blue.png'), blue);
      const created = runCurl(curl, dir);
      expect(created.status, created.body).toBe('201');
      const copy = (JSON.parse(created.body) as { data: Album }).data;
      expect(copy.id).not.toBe(album!.id);
      expect(copy.title).toBe('Red album');
      expect(copy.cover).toMatchObject({ size: red.length, type: 'image/png' });
      expect(copy.photos).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // The other languages write the same parts.
    await page.getByTestId('code-samples').getByText('Python (requests)', { exact: true }).click();
    await expect(code).toContainText('("cover", ("red.png", open("red.png", "rb")))');
    await page.getByTestId('code-samples').getByText('Go (net/http)', { exact: true }).click();
    await expect(code).toContainText('addFile(form, "photos", "blue.png")');
    await page.getByTestId('code-samples').getByText('JavaScript (fetch)', { exact: true }).click();
    await expect(code).toContainText('form.append("cover", await openAsBlob("red.png"), "red.png");');
    await page.getByTestId('code-samples').getByText('curl', { exact: true }).click();
  });

  await test.step('the upload operation takes a file and answers its token', async () => {
    await page.getByLabel('Operation').selectOption('POST /albums/files/cover');
    await expect(page.getByRole('heading', { name: 'Form body' })).toBeVisible();
    await expect(page.getByRole('radiogroup', { name: 'Body' })).toHaveCount(0);
    await chooseFile(page, page.getByLabel('file', { exact: true }), [{ name: 'blue.png', mimeType: 'image/png', buffer: blue }]);
    await expect(page.getByTestId('code-sample')).toContainText(`-F 'file=@blue.png'`);
    await page.getByRole('button', { name: 'Send' }).click();
    await expectStatus(page, '201');
    const upload = (JSON.parse(await page.getByTestId('response-body').innerText()) as { data: { token: string; size: number; type: string } }).data;
    expect(upload.token).toBeTruthy();
    expect(upload).toMatchObject({ size: blue.length, type: 'image/png' });
  });

  await test.step('the download shows its answer as bytes, with the image', async () => {
    await page.getByLabel('Operation').selectOption('GET /albums/{id}/files/cover/{name}');
    await page.getByLabel('id (path)').fill(String(album!.id));
    await page.getByLabel('name (path)').fill(album!.cover!.name);
    await page.getByRole('button', { name: 'Send' }).click();
    await expectStatus(page, '200');
    await expect(page.getByTestId('response-body')).toHaveText(`binary: ${red.length} bytes, image/png`);
    const image = page.getByTestId('response-image');
    await expect
      .poll(() => image.evaluate((el) => ((el as HTMLImageElement).complete ? (el as HTMLImageElement).naturalWidth : 0)), { timeout: 30_000 })
      .toBe(3);
    await checkPage(page, 'tester-files-02-download');
  });
  await request.dispose();
});

// The Webhooks page (issue 39 items 1 and 6): an owner creates a webhook in
// the dashboard pointing at a real receiver started here on 127.0.0.1
// (scripts/e2e.sh lets the server deliver to private addresses), sees its
// secret once, and a record written through the API arrives signed with that
// secret; the delivery shows in the page's log; the owner replays it, rotates
// the secret (the next delivery is signed by both), replays from a time,
// disables and deletes it.
import { expect, test, type Page } from '@playwright/test';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { baseURL } from '../playwright.config';
import { checkPage, createApiProject, openSection } from './support';

const schema = {
  tables: [
    { name: 'notes', realtime: true, columns: [{ name: 'title', type: 'text', required: true }] },
    { name: 'drafts', columns: [{ name: 'body', type: 'text' }] },
  ],
};

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

test.use({ viewport: { width: 1440, height: 900 } });

async function signIn(page: Page, session: string, projectId: string): Promise<void> {
  await page.goto('/login');
  await page.evaluate((s) => localStorage.setItem('tablesmith.session', s), session);
  // A light page to start from: the Schema page's editor takes seconds to load.
  await page.goto(`/projects/${projectId}/logs`);
  await expect(page.getByRole('heading', { level: 1, name: 'Logs', exact: true })).toBeVisible({ timeout: 30_000 });
}

test('a webhook made in the dashboard delivers a signed POST, logs it, replays it, rotates its secret and is deleted', async ({ page, playwright }) => {
  test.setTimeout(60_000);
  const request = await playwright.request.newContext({ baseURL });
  const p = await createApiProject(request, 'Webhooks', schema);

  const received: Received[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('thanks');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  try {
    await signIn(page, p.session, p.projectId);
    await openSection(page, 'Webhooks');
    await expect(page.getByText('No webhooks yet')).toBeVisible();

    await page.getByRole('button', { name: 'New webhook' }).click();
    const form = page.getByRole('form', { name: 'Create a webhook' });
    await form.getByLabel('URL').fill(target);
    await form.getByRole('textbox', { name: 'Tables' }).click();
    await page.getByRole('option', { name: 'notes', exact: true }).click();
    await page.keyboard.press('Escape');
    await form.getByRole('button', { name: 'Create webhook' }).click();

    const secretDialog = page.getByRole('dialog', { name: /copy its signing secret/ });
    await expect(secretDialog.getByText('You will not see this secret again')).toBeVisible();
    const secret = (await secretDialog.getByTestId('webhook-secret').textContent())!.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    await secretDialog.getByRole('button', { name: 'I have copied it' }).click();
    await expect(secretDialog).toBeHidden();
    // Shown once: nothing on the page holds it after the dialog closes.
    await expect(page.getByText(secret)).toHaveCount(0);

    const card = page.getByRole('region', { name: target });
    await expect(card.getByText('enabled', { exact: true })).toBeVisible();

    const startedAt = new Date();
    const write = await request.post(`/v1/${p.projectId}/notes`, { headers: { Authorization: `Bearer ${p.key}` }, data: { title: 'Hello hook' } });
    expect(write.status(), await write.text()).toBe(201);
    const id = ((await write.json()) as { data: { id: number } }).data.id;

    await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThan(0);
    const got = received[0];
    const hookId = got.headers['webhook-id'] as string;
    expect(hookId).toMatch(/^wh_.+_\d+$/);
    const body = JSON.parse(got.body) as { type: string; table: string; record: { id: number; title: string }; change_id: number };
    expect(body).toMatchObject({ type: 'insert', table: 'notes', record: { id, title: 'Hello hook' } });
    // The signature is the one the shown secret makes (Standard Webhooks).
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const want = 'v1,' + createHmac('sha256', key).update(`${hookId}.${got.headers['webhook-timestamp'] as string}.${got.body}`).digest('base64');
    expect((got.headers['webhook-signature'] as string).split(' ')).toContain(want);

    await card.getByRole('button', { name: 'Deliveries' }).click();
    const log = card.getByRole('table', { name: `Deliveries of ${target}` });
    await expect(log.getByRole('row').filter({ hasText: `${body.change_id} insert notes` })).toContainText('200 delivered', { timeout: 15_000 });
    await expect(log).toContainText('thanks');

    // Replay from the change: the same change comes again, with the same webhook-id.
    const replay = card.getByRole('form', { name: `Replay ${target}` });
    await replay.getByLabel('Replay from change id').fill(String(body.change_id));
    await replay.getByRole('button', { name: 'Replay' }).click();
    await expect(replay.getByRole('status')).toContainText(`Replaying from change ${body.change_id}`);
    await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThan(1);
    expect(received[1].headers['webhook-id']).toBe(hookId);

    // Rotate: a new secret, shown once; the next delivery is signed by both.
    await card.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = page.getByRole('dialog', { name: 'New signing secret' });
    await expect(rotated.getByText('keeps signing')).toBeVisible();
    const secret2 = (await rotated.getByTestId('webhook-secret').textContent())!.trim();
    expect(secret2).toMatch(/^whsec_/);
    expect(secret2).not.toBe(secret);
    await rotated.getByRole('button', { name: 'I have copied it' }).click();
    const seen = received.length;
    const second = await request.post(`/v1/${p.projectId}/notes`, { headers: { Authorization: `Bearer ${p.key}` }, data: { title: 'After rotation' } });
    expect(second.status()).toBe(201);
    await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThan(seen);
    const next = received[seen];
    const sign = (s: string) =>
      'v1,' +
      createHmac('sha256', Buffer.from(s.slice('whsec_'.length), 'base64'))
        .update(`${next.headers['webhook-id'] as string}.${next.headers['webhook-timestamp'] as string}.${next.body}`)
        .digest('base64');
    const signatures = (next.headers['webhook-signature'] as string).split(' ');
    expect(signatures).toContain(sign(secret2));
    expect(signatures).toContain(sign(secret));

    // Replay from a time (the minute before the first write, in the
    // browser's local time, which is this process's): both changes again.
    const before = new Date(startedAt.getTime() - 60_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    const localMinute = `${before.getFullYear()}-${pad(before.getMonth() + 1)}-${pad(before.getDate())}T${pad(before.getHours())}:${pad(before.getMinutes())}`;
    const replayed = received.length;
    await replay.getByText('Time', { exact: true }).click(); // the segment's label: its radio is hidden
    await replay.getByLabel('Replay from time').fill(localMinute);
    await replay.getByRole('button', { name: 'Replay' }).click();
    await expect(replay.getByRole('status')).toContainText('Replaying from');
    await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(replayed + 2);
    const titles = received.slice(replayed).map((r) => (JSON.parse(r.body) as { record: { title: string } }).record.title);
    expect(titles.slice(0, 2)).toEqual(['Hello hook', 'After rotation']);

    // More than a page of attempts (50): the older ones are a click away.
    const bulk = await request.post(`/v1/${p.projectId}/notes/bulk`, {
      headers: { Authorization: `Bearer ${p.key}` },
      data: Array.from({ length: 50 }, (_, i) => ({ title: `Bulk ${i}` })),
    });
    expect(bulk.status(), await bulk.text()).toBe(201);
    const pageRows = log.getByRole('row').filter({ hasText: ' notes' });
    await expect.poll(() => pageRows.count(), { timeout: 30_000 }).toBe(50);
    await card.getByRole('button', { name: 'Load older deliveries' }).click();
    await expect.poll(() => pageRows.count(), { timeout: 15_000 }).toBeGreaterThan(50);
    await expect(log.getByRole('row').filter({ hasText: `${body.change_id} insert notes` }).first()).toBeVisible();

    await card.getByRole('switch', { name: `Enabled: ${target}` }).click();
    await expect(card.getByText('disabled', { exact: true })).toBeVisible();
    await checkPage(page, 'webhooks-log');

    // Delete, after a confirmation: the page is back to empty.
    await card.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog', { name: 'Delete this webhook?' }).getByRole('button', { name: 'Delete webhook' }).click();
    await expect(page.getByText('No webhooks yet')).toBeVisible();
  } finally {
    receiver.close();
    await request.dispose();
  }
});

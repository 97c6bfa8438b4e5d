// Password reset of a generated API's end user (issue 41, item 2): the app
// asks for a reset through the API, the user opens the mailed link (read
// here from the project's Outbox through the platform API), sets a new
// password on Tablesmith's hosted page, and signs in with it; the owner
// then finds the message on the project's Email page.
import { expect, test } from '@playwright/test';
import { checkPage, createApiProject } from './support';

const schema = {
  tables: [
    {
      name: 'users',
      auth: true,
      columns: [
        { name: 'email', type: 'email', required: true, unique: true },
        { name: 'password_hash', type: 'password', required: true },
      ],
    },
  ],
};

interface OutboxMessage {
  kind: string;
  to: string;
  text: string;
}

test('an end user resets their password through the mailed link', async ({ page, request }) => {
  const p = await createApiProject(request, 'Reset journey', schema);
  const auth = (route: string) => `/v1/${p.projectId}/auth/${route}`;
  const email = `enduser.${Date.now()}@example.com`;
  expect((await request.post(auth('register'), { data: { email, password: 'first password 1' } })).status()).toBe(201);

  const reset = await request.post(auth('password-reset'), { data: { email } });
  expect(reset.status()).toBe(202);

  // The link, from the newest password_reset message to this address.
  let link = '';
  await expect
    .poll(
      async () => {
        const response = await request.get(`/api/projects/${p.projectId}/outbox`, { headers: { Authorization: `Bearer ${p.session}` } });
        if (!response.ok()) return '';
        const messages = ((await response.json()) as { data: OutboxMessage[] }).data;
        const message = messages.find((m) => m.kind === 'password_reset' && m.to === email);
        link = /https?:\/\/\S+\/auth\/reset-password\?\S+/.exec(message?.text ?? '')?.[0] ?? '';
        return link;
      },
      { message: 'a reset link in the outbox', timeout: 15_000 },
    )
    .not.toBe('');

  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Set a new password' })).toBeVisible();
  await page.getByRole('textbox', { name: 'New password', exact: true }).fill('second password 2');
  await page.getByLabel('Repeat the new password').fill('second password 2');
  await checkPage(page, 'end-user-reset-form');
  await page.getByRole('button', { name: 'Set password' }).click();
  await expect(page.getByRole('status')).toContainText('Password changed');
  await checkPage(page, 'end-user-reset-done');

  // The link worked once; the new password signs in, the old one no longer does.
  await page.reload();
  await page.getByRole('textbox', { name: 'New password', exact: true }).fill('third password 3');
  await page.getByLabel('Repeat the new password').fill('third password 3');
  await page.getByRole('button', { name: 'Set password' }).click();
  await expect(page.getByRole('alert')).toContainText('already used');

  const login = await request.post(auth('login'), { data: { email, password: 'second password 2' } });
  expect(login.status()).toBe(200);
  expect(((await login.json()) as { data: { access_token: string } }).data.access_token).toBeTruthy();
  expect((await request.post(auth('login'), { data: { email, password: 'first password 1' } })).status()).toBe(401);

  // The owner finds the message on the project's Email page, its link clickable; one
  // message is one page, so the page offers no older ones.
  await page.goto('/login');
  await page.evaluate((session) => localStorage.setItem('tablesmith.session', session), p.session);
  await page.goto(`/projects/${p.projectId}/email`);
  await expect(page.getByRole('heading', { level: 1, name: 'Email', exact: true })).toBeVisible();
  const row = page
    .getByRole('table', { name: 'Outbox' })
    .getByRole('row')
    .filter({ has: page.getByRole('cell', { name: email, exact: true }) });
  await expect(row).toContainText('Password reset');
  const subject = row.getByRole('button', { name: /Reset your Reset journey password/ });
  await expect(subject).toHaveAttribute('aria-expanded', 'false');
  await subject.click();
  await expect(subject).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByTestId('outbox-text').getByRole('link')).toHaveAttribute('href', link);
  await expect(page.getByRole('button', { name: 'Older messages' })).toHaveCount(0);
  await checkPage(page, 'email-outbox');
});

// A forgotten password, in the browser: "Forgot password?" on the login
// page, the link from the e-mail, a new password twice, signed in; the old
// password no longer works and the new one does. The e2e server runs
// without SMTP, so the e-mail is read where it went: the server log
// (TABLESMITH_E2E_CADDY_LOG, set by scripts/e2e.sh) or, against a server
// started otherwise, the outbox table (TABLESMITH_DATABASE_URL, with psql).
import { expect, test } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { checkPage } from './support';

const stamp = Date.now();
const account = { name: 'Rosa Reset', email: `rosa.${stamp}@example.com`, password: 'the-old-password', next: 'a-brand-new-password' };

/** The token of the newest reset link mailed to an address, or '' when none has gone out yet. */
function latestResetToken(email: string): string {
  const pattern = /\/reset-password\?token=(tsar_[A-Za-z0-9_-]{43})/g;
  const log = process.env.TABLESMITH_E2E_CADDY_LOG;
  const database = process.env.TABLESMITH_DATABASE_URL;
  let text = '';
  if (log) {
    // One JSON line per message: msg "mail" with to, subject and text.
    text = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"mail"') && line.includes(email))
      .join('\n');
  } else if (database) {
    text = execFileSync(
      'psql',
      [database, '-X', '-A', '-t', '-v', `email=${email}`, '-c', "SELECT text_body FROM tablesmith.mail_outbox WHERE kind = 'account_reset' AND to_address = :'email' ORDER BY id"],
      { encoding: 'utf8' },
    );
  } else {
    test.skip(true, 'neither TABLESMITH_E2E_CADDY_LOG nor TABLESMITH_DATABASE_URL says where the e-mail goes');
  }
  const tokens = [...text.matchAll(pattern)].map((m) => m[1]);
  return tokens.at(-1) ?? '';
}

test('a forgotten password is reset from the e-mailed link', async ({ page }) => {
  await test.step('an account with a password', async () => {
    const res = await page.request.post('/api/auth/signup', { data: { name: account.name, email: account.email, password: account.password } });
    expect(res.status()).toBe(201);
  });

  await test.step('ask for a reset link from the login page', async () => {
    await page.goto('/login');
    await page.getByLabel('E-mail').fill(account.email);
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await expect(page).toHaveURL(/\/forgot-password$/);
    await expect(page.getByRole('heading', { name: 'Reset your password' })).toBeVisible();
    // The address typed on the login page comes along.
    await expect(page.getByLabel('E-mail')).toHaveValue(account.email);
    await checkPage(page, 'account-reset-01-forgot');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await expect(page.getByText('Check your inbox')).toBeVisible();
    await checkPage(page, 'account-reset-02-sent');
  });

  let token = '';
  await test.step('the e-mail carries the link', async () => {
    await expect.poll(() => (token = latestResetToken(account.email)), { timeout: 30_000, message: 'a reset e-mail to the account' }).not.toBe('');
  });

  await test.step('follow the link and choose a new password', async () => {
    await page.goto(`/reset-password?token=${token}`);
    await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
    await page.getByRole('textbox', { name: 'New password', exact: true }).fill(account.next);
    await page.getByLabel('Repeat the new password').fill(account.next + 'x');
    await page.getByRole('button', { name: 'Set password and log in' }).click();
    await expect(page.getByText('The two passwords differ')).toBeVisible();
    await page.getByLabel('Repeat the new password').fill(account.next);
    await checkPage(page, 'account-reset-03-new-password');
    await page.getByRole('button', { name: 'Set password and log in' }).click();
    await expect(page).toHaveURL(/\/projects$/);
    await expect(page.getByRole('heading', { name: 'Projects', exact: true })).toBeVisible();
  });

  await test.step('the link worked once', async () => {
    await page.goto(`/reset-password?token=${token}`);
    await page.getByRole('textbox', { name: 'New password', exact: true }).fill('yet-another-password');
    await page.getByLabel('Repeat the new password').fill('yet-another-password');
    await page.getByRole('button', { name: 'Set password and log in' }).click();
    await expect(page.getByRole('heading', { name: 'This link does not work' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Send a new link' })).toBeVisible();
  });

  await test.step('sign in with the new password, not the old one', async () => {
    await page.evaluate(() => localStorage.removeItem('tablesmith.session'));
    const old = await page.request.post('/api/auth/login', { data: { email: account.email, password: account.password } });
    expect(old.status()).toBe(401);
    await page.goto('/login');
    await page.getByLabel('E-mail').fill(account.email);
    await page.getByLabel('Password').fill(account.next);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page).toHaveURL(/\/projects$/);
    // The reset link reached the mailbox: the address counts as verified.
    await expect(page.getByTestId('verify-email-banner')).toHaveCount(0);
  });

  await test.step('the Security page is one click away', async () => {
    await page.getByRole('button', { name: /Account menu/ }).click();
    await page.getByRole('menuitem', { name: 'Security' }).click();
    await expect(page).toHaveURL(/\/account\/security$/);
    await expect(page.getByRole('heading', { name: 'Two-factor authentication' })).toBeVisible();
    await checkPage(page, 'account-reset-04-security');
  });
});

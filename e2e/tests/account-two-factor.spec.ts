// Two-factor authentication in the browser: Account → Security, turn it on
// (QR code and setup key, a code from the "app", the recovery codes shown
// once), log in again with the second step (a code, then a recovery code),
// and turn it off. The authenticator app is played by totpCode below.
import { expect, test, type Locator, type Page } from '@playwright/test';
import { createHmac } from 'node:crypto';
import { checkPage } from './support';

const stamp = Date.now();
const account = { name: 'Tom Totp', email: `tom.${stamp}@example.com`, password: 'a-long-enough-password' };

/** RFC 6238 (SHA-1, 6 digits, 30 s) for a base32 secret, at a step offset from now. */
function totpCode(secret: string, stepOffset = 0): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const ch of secret.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(ch).toString(2).padStart(5, '0');
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 1000 / 30) + stepOffset));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1] & 0xf;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return value.toString().padStart(6, '0');
}

/** Types a code into a 6-box code field as a person does: focus the first box, type the digits. */
async function typeCode(page: Page, firstBox: Locator, code: string): Promise<void> {
  await firstBox.click();
  await page.keyboard.type(code, { delay: 50 });
}

/** Waits into the next 30-second step, so the next code is one not used yet. */
async function nextStep(page: Page): Promise<void> {
  const ms = 30_000 - (Date.now() % 30_000) + 500;
  await page.waitForTimeout(ms);
}

async function logIn(page: Page): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('E-mail').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByRole('heading', { name: 'Two-factor authentication' })).toBeVisible();
}

async function logOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: /Account menu/ }).click();
  await page.getByRole('menuitem', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/login$/);
}

test('two-factor: turn on, log in with a code and a recovery code, turn off', async ({ page }) => {
  test.setTimeout(300_000); // it waits for fresh 30-second steps
  let secret = '';
  let recovery: string[] = [];

  await test.step('sign up and open Account → Security', async () => {
    await page.goto('/signup');
    await page.getByLabel('Name').fill(account.name);
    await page.getByLabel('E-mail').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: /Sign up/ }).click();
    await expect(page).toHaveURL(/\/projects$/);
    await expect(page.getByTestId('verify-email-banner')).toBeVisible();
    await checkPage(page, 'account-2fa-00-unverified-banner');
    await page.getByRole('button', { name: /Account menu/ }).click();
    await page.getByRole('menuitem', { name: 'Security' }).click();
    await expect(page.getByTestId('totp-status')).toHaveText('Off');
  });

  await test.step('turn on: scan, confirm with a code, save the recovery codes', async () => {
    await page.getByRole('button', { name: 'Turn on two-factor' }).click();
    const dialog = page.getByRole('dialog', { name: 'Turn on two-factor authentication' });
    await expect(dialog.getByTestId('totp-qr')).toBeVisible();
    secret = (await dialog.locator('.mono').first().textContent())?.trim() ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await checkPage(page, 'account-2fa-01-enrol');
    await typeCode(page, dialog.locator('.mantine-PinInput-input').first(), totpCode(secret));
    await expect(dialog.getByTestId('recovery-codes')).toBeVisible();
    recovery = (await dialog.getByTestId('recovery-codes').locator('code').allTextContents()).map((c) => c.trim());
    expect(recovery).toHaveLength(10);
    await checkPage(page, 'account-2fa-02-recovery-codes');
    await dialog.getByRole('button', { name: 'I have saved my recovery codes' }).click();
    await expect(page.getByTestId('totp-status')).toHaveText('On');
  });

  await test.step('log in: the password, then a code', async () => {
    await logOut(page);
    await nextStep(page); // the confirming code is spent
    await logIn(page);
    await checkPage(page, 'account-2fa-03-login-code');
    await typeCode(page, page.locator('.mantine-PinInput-input').first(), totpCode(secret));
    await expect(page).toHaveURL(/\/projects$/);
  });

  await test.step('log in with a recovery code, once', async () => {
    await logOut(page);
    await logIn(page);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(recovery[0]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page).toHaveURL(/\/projects$/);
    await logOut(page);
    await logIn(page);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(recovery[0]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByText('Wrong or already used code')).toBeVisible();
    await page.getByLabel('Recovery code').fill(recovery[1]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page).toHaveURL(/\/projects$/);
  });

  await test.step('turn off with the password and a recovery code', async () => {
    await page.goto('/account/security');
    await page.getByRole('button', { name: 'Turn off' }).click();
    const dialog = page.getByRole('dialog', { name: 'Turn off two-factor authentication' });
    await dialog.getByLabel('Password').fill(account.password);
    await dialog.getByLabel('Code').fill(recovery[2]);
    await dialog.getByRole('button', { name: 'Turn off two-factor' }).click();
    await expect(page.getByTestId('totp-status')).toHaveText('Off');
    await logOut(page);
    await page.getByLabel('E-mail').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page).toHaveURL(/\/projects$/);
  });
});

// Sign-in with a provider (issue 41, item 6): the owner configures an
// OpenID Connect provider in Settings, an end user opens the project's
// authorize URL in the browser, signs in on the provider's own page, comes
// back to the app's page with a one-time code, and the app trades it for a
// session. The provider is tools/testoidc, a real OpenID provider (zitadel's
// op) started by this file on a free port of 127.0.0.1.
import { expect, test } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { baseURL } from '../playwright.config';
import { checkPage, createApiProject, openSection } from './support';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const origin = new URL(baseURL).origin;

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

const client = { id: 'tablesmith-app', secret: 'testoidc-client-secret' };
const providerUser = { username: 'ann', password: 'pw-ann-1', email: `ann.${Date.now()}@example.com` };

let work = '';
let binary = '';
let provider: ChildProcess | undefined;

/** Runs a command to its end; rejects with its output when it fails. */
function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')}: exit ${code}\n${output}`))));
  });
}

/**
 * Starts testoidc with one client, whose redirect URI is given, and one user
 * with a verified e-mail; resolves with its issuer once it prints "ready".
 * Clients are fixed at start, so it starts once the project (and so the
 * callback URL) exists.
 */
function startProvider(redirectURI: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      binary,
      [
        '-addr',
        '127.0.0.1:0',
        '-client',
        `${client.id}:${client.secret}:${redirectURI}`,
        '-user',
        `${providerUser.username}:${providerUser.password}:${providerUser.email}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    provider = child;
    let errors = '';
    child.stderr.on('data', (d: Buffer) => (errors += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`testoidc ended (exit ${code}) before it was ready:\n${errors}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const ready = /^ready (\S+)$/.exec(line);
      if (ready) resolve(ready[1]!);
    });
  });
}

test.beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'testoidc-'));
  // make test-e2e builds it before the journeys start (TABLESMITH_E2E_TESTOIDC);
  // run alone, the journey builds it, which takes a while on a loaded machine.
  binary = process.env.TABLESMITH_E2E_TESTOIDC ?? '';
  if (!binary) {
    test.setTimeout(300_000);
    binary = join(work, 'testoidc');
    await run('go', ['build', '-o', binary, './tools/testoidc']);
  }
});

test.afterAll(() => {
  provider?.kill();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('an end user signs in with an OpenID provider configured in Settings', async ({ page, request }) => {
  const p = await createApiProject(request, 'Provider sign-in', schema);
  const owner = { Authorization: `Bearer ${p.session}` };
  const name = 'corp';
  const callback = `${origin}/v1/${p.projectId}/auth/providers/${name}/callback`;
  const appPage = `${origin}/provider-return`;

  // redirect_to must be on an origin the project lists: the app's page is
  // served by Tablesmith's own origin here (the dashboard answers any path).
  const cors = await request.patch(`/api/projects/${p.projectId}`, { headers: owner, data: { cors: { allowed_origins: [origin] } } });
  expect(cors.status(), await cors.text()).toBe(200);

  const issuer = await startProvider(callback);

  await test.step('the owner adds the provider in Settings and sees the redirect URI to register', async () => {
    await page.goto('/login');
    await page.evaluate((session) => localStorage.setItem('tablesmith.session', session), p.session);
    await page.goto(`/projects/${p.projectId}/schema`);
    await openSection(page, 'Settings');
    const section = page.getByRole('region', { name: 'Sign-in providers' });
    await expect(section.getByText('No providers yet.')).toBeVisible();
    await section.getByRole('button', { name: 'Add provider' }).click();

    const form = page.getByRole('form', { name: 'Sign-in provider' });
    await form.getByLabel('Kind', { exact: true }).click();
    await page.getByRole('option', { name: 'Any OpenID Connect provider' }).click();
    await form.getByRole('textbox', { name: 'Name' }).fill(name);
    await form.getByRole('textbox', { name: 'Issuer' }).fill(issuer);
    await form.getByRole('textbox', { name: 'Client id' }).fill(client.id);
    await form.getByLabel('Client secret').fill(client.secret);
    await expect(form.getByRole('switch', { name: 'Enabled' })).toBeChecked();
    await expect(form.getByText(callback, { exact: true })).toBeVisible();
    await checkPage(page, 'provider-sign-in-01-editor');
    await form.getByRole('button', { name: 'Save provider' }).click();

    await expect(form).toBeHidden();
    const table = section.getByRole('table', { name: 'Sign-in providers' });
    const row = table.getByRole('row').filter({ hasText: name });
    await expect(row).toContainText(client.id);
    await expect(row.getByText(callback, { exact: true })).toBeVisible();
    await checkPage(page, 'provider-sign-in-02-settings');
  });

  let code = '';
  await test.step('the end user signs in at the provider and returns to the app with a code', async () => {
    // A fresh browser state: the end user is not the dashboard's owner.
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${origin}/v1/${p.projectId}/auth/providers/${name}/authorize?redirect_to=${encodeURIComponent(appPage)}`);
    await expect(page).toHaveURL((url) => url.origin === new URL(issuer).origin);
    await page.getByLabel('Username').fill(providerUser.username);
    await page.getByLabel('Password').fill(providerUser.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL((url) => url.origin + url.pathname === appPage && url.searchParams.has('code'));
    const back = new URL(page.url());
    expect(back.searchParams.get('error'), back.searchParams.get('error_description') ?? '').toBeNull();
    code = back.searchParams.get('code')!;
    expect(code).toBeTruthy();
  });

  await test.step('the app trades the code for a session of the provider user, once', async () => {
    const exchange = await page.request.post(`/v1/${p.projectId}/auth/providers/exchange`, { data: { code } });
    expect(exchange.status(), await exchange.text()).toBe(200);
    const session = ((await exchange.json()) as { data: { access_token: string; refresh_token: string; user: { email: string } } }).data;
    expect(session.refresh_token).toBeTruthy();
    expect(session.user.email).toBe(providerUser.email);

    const me = await page.request.get(`/v1/${p.projectId}/auth/me`, { headers: { Authorization: `Bearer ${session.access_token}` } });
    expect(me.status(), await me.text()).toBe(200);
    expect(((await me.json()) as { data: { email: string } }).data.email).toBe(providerUser.email);

    const again = await page.request.post(`/v1/${p.projectId}/auth/providers/exchange`, { data: { code } });
    expect(again.status(), await again.text()).toBe(401);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
  });

  await test.step('authorize refuses a redirect_to on an origin the project does not list', async () => {
    const elsewhere = 'http://app.invalid/provider-return';
    const response = await page.goto(`${origin}/v1/${p.projectId}/auth/providers/${name}/authorize?redirect_to=${encodeURIComponent(elsewhere)}`);
    expect(response?.status()).toBe(400);
    expect(new URL(page.url()).origin, 'the browser stays on Tablesmith').toBe(origin);
    const body = (await response!.json()) as { success: boolean; error: { code: string; details: Record<string, string> } };
    expect(body.success).toBe(false);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details.redirect_to).toContain('http://app.invalid');
  });
});

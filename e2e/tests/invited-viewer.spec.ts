// Teams (issue 41 item 5, docs/teams.md): the owner invites a viewer from
// the Members page; the viewer opens the e-mailed link, signs up, comes
// back to the invitation and accepts; the viewer then reads the schema but
// is offered no generate, schema-editing or key-creation controls, and a
// write through the platform API answers 403.
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { baseURL } from '../playwright.config';
import { checkPage, createApiProject, openSection, sessionToken } from './support';

const schema = { tables: [{ name: 'notes', columns: [{ name: 'title', type: 'text', required: true }] }] };

test.use({ viewport: { width: 1440, height: 900 } });

async function signIn(page: Page, session: string, projectId: string): Promise<void> {
  await page.goto('/login');
  await page.evaluate((s) => localStorage.setItem('tablesmith.session', s), session);
  await page.goto(`/projects/${projectId}/members`);
  await expect(page.getByRole('heading', { level: 1, name: 'Members', exact: true })).toBeVisible({ timeout: 30_000 });
}

/**
 * The invitation link mailed to `to`: read from the project's outbox
 * (GET /api/projects/{id}/outbox, newest first), or, on a server without
 * that route, from the outbox table with psql.
 */
async function invitationLink(request: APIRequestContext, session: string, projectId: string, to: string): Promise<string> {
  const find = (text: string) => /\/invites\/[A-Za-z0-9_-]{43}/.exec(text)?.[0];
  let link: string | undefined;
  await expect
    .poll(
      async () => {
        const res = await request.get(`/api/projects/${projectId}/outbox`, { headers: { Authorization: `Bearer ${session}` } });
        if (res.status() === 404 && process.env.TABLESMITH_DATABASE_URL) {
          const text = execFileSync(
            'psql',
            [process.env.TABLESMITH_DATABASE_URL, '-Atc', 'SELECT text_body FROM tablesmith.mail_outbox WHERE to_address = $$' + to + '$$ ORDER BY created_at DESC LIMIT 1'],
            { encoding: 'utf8' },
          );
          link = find(text);
          return link;
        }
        if (!res.ok()) return undefined;
        const messages = ((await res.json()) as { data: { to: string; text: string; kind: string }[] }).data;
        const message = messages.find((m) => m.to === to && m.kind === 'invite');
        link = message ? find(message.text) : undefined;
        return link;
      },
      { message: `an invitation e-mail to ${to} in the outbox`, timeout: 30_000 },
    )
    .toBeTruthy();
  return link!;
}

test('an invited viewer signs up from the link, reads the schema, and is offered no write', async ({ page, browser, playwright }) => {
  test.setTimeout(120_000);
  const request = await playwright.request.newContext({ baseURL });
  const owner = await createApiProject(request, 'Team project', schema);
  const ownerAuth = { Authorization: `Bearer ${owner.session}` };
  // An unpublished change: the Generate page would offer its button.
  const draft = { tables: [{ name: 'notes', columns: [{ name: 'title', type: 'text', required: true }, { name: 'body', type: 'text' }] }] };
  expect((await request.put(`/api/projects/${owner.projectId}/schema`, { headers: ownerAuth, data: draft })).status()).toBe(200);

  // The owner invites a viewer on the Members page.
  const viewerEmail = `viewer.${Date.now()}${Math.floor(Math.random() * 1000)}@example.com`;
  await signIn(page, owner.session, owner.projectId);
  const invite = page.getByRole('form', { name: 'Invite a member' });
  await invite.getByLabel('E-mail').fill(viewerEmail);
  await invite.getByRole('textbox', { name: 'Role' }).click();
  await page.getByRole('option', { name: 'Viewer' }).click();
  await invite.getByRole('button', { name: 'Send invitation' }).click();
  const pending = page.getByRole('table', { name: 'Pending invitations' });
  await expect(pending.getByRole('row').filter({ hasText: viewerEmail })).toContainText('viewer');
  await checkPage(page, 'members-owner');

  const link = await invitationLink(request, owner.session, owner.projectId, viewerEmail);

  // The viewer, in a browser of their own, opens the link, signs up and comes back.
  const context = await browser.newContext({ baseURL, viewport: { width: 1440, height: 900 } });
  const viewer = await context.newPage();
  await viewer.goto(link);
  await expect(viewer.getByRole('heading', { name: 'You are invited to a project' })).toBeVisible();
  await viewer.getByRole('link', { name: 'Sign up' }).click();
  await viewer.getByLabel('Name').fill('Vera Viewer');
  await viewer.getByLabel('E-mail').fill(viewerEmail);
  await viewer.getByLabel('Password').fill('correct-horse-battery');
  await viewer.getByRole('button', { name: /Sign up/ }).click();
  await expect(viewer).toHaveURL(new RegExp(`${link}$`));
  await viewer.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(viewer).toHaveURL(new RegExp(`/projects/${owner.projectId}/schema$`));

  // The schema reads; nothing offers to change it.
  await expect(viewer.getByRole('heading', { level: 1, name: 'Schema', exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(viewer.getByText('Read only', { exact: true })).toBeVisible();
  await expect(viewer.getByText('notes').first()).toBeVisible();
  for (const name of ['Add table', 'Save', 'Generate']) {
    await expect(viewer.getByRole('button', { name, exact: true })).toHaveCount(0);
  }
  await expect(viewer.getByRole('main').getByRole('link', { name: 'Generate', exact: true })).toHaveCount(0);
  await checkPage(viewer, 'schema-viewer');

  // Generate: the pending change is listed, its button disabled with the role it needs.
  await openSection(viewer, 'Generate');
  await expect(viewer.getByRole('button', { name: 'Generate API' })).toBeDisabled();
  await viewer.locator('[data-role-needed="developer"]').first().hover();
  await expect(viewer.getByRole('tooltip')).toHaveText('Needs the developer role or higher');

  // Settings: keys are listed, none can be made or revoked.
  await openSection(viewer, 'Settings');
  await expect(viewer.getByRole('cell', { name: 'e2e' })).toBeVisible();
  await expect(viewer.getByRole('button', { name: 'Create key' })).toHaveCount(0);
  await expect(viewer.getByRole('button', { name: /Revoke key/ })).toHaveCount(0);
  await expect(viewer.getByRole('button', { name: 'Delete project' })).toHaveCount(0);

  // Members: the viewer is listed as such and may only leave.
  await openSection(viewer, 'Members');
  await expect(viewer.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: viewerEmail })).toContainText('viewer');
  await expect(viewer.getByRole('form', { name: 'Invite a member' })).toHaveCount(0);
  await expect(viewer.getByRole('button', { name: 'Leave project' })).toBeVisible();

  // The server refuses the viewer's writes whatever the page shows.
  const viewerAuth = { Authorization: `Bearer ${await sessionToken(viewer)}` };
  const save = await request.put(`/api/projects/${owner.projectId}/schema`, { headers: viewerAuth, data: schema });
  expect(save.status()).toBe(403);
  expect(((await save.json()) as { error: { code: string; message: string } }).error).toMatchObject({
    code: 'FORBIDDEN',
    message: expect.stringContaining('developer role'),
  });
  expect((await request.post(`/api/projects/${owner.projectId}/keys`, { headers: viewerAuth, data: { name: 'mine' } })).status()).toBe(403);
  expect((await request.post(`/api/projects/${owner.projectId}/generate`, { headers: viewerAuth, data: {} })).status()).toBe(403);

  // The owner's audit log names the viewer's joining.
  await openSection(page, 'Audit log');
  await expect(page.getByRole('table', { name: 'Audit log' }).getByRole('row').filter({ hasText: 'joined the project' })).toContainText(viewerEmail);
  await checkPage(page, 'audit-log');
  await context.close();
});

// Helpers shared by the browser tests: page checks (accessibility, a
// screenshot per page) and reading the dashboard's own state.
import AxeBuilder from '@axe-core/playwright';
import { expect, type APIRequestContext, type APIResponse, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const artifactsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');
mkdirSync(artifactsDir, { recursive: true });

/** Saves a full-page screenshot as e2e/artifacts/<name>.png. */
export async function snapshot(page: Page, name: string): Promise<void> {
  // A full page of Swagger UI took 8 s to capture beside other journeys,
  // and over 15 s (the action timeout) on a loaded CI machine.
  await page.screenshot({ path: join(artifactsDir, `${name}.png`), fullPage: true, timeout: 60_000 });
}

/**
 * Runs axe (WCAG 2.1 A and AA rules) and fails on serious or critical
 * violations, naming each rule and the elements that break it.
 */
export async function expectAccessible(page: Page, pageName: string): Promise<void> {
  let serious = await seriousViolations(page);
  // A transition can start between the wait for rest and axe's pass (a
  // toast closing on its timer): its colours are between states. Look
  // again once it has ended; a real problem is still there.
  for (let again = 0; serious.length > 0 && again < 2; again++) {
    await page.waitForTimeout(500);
    serious = await seriousViolations(page);
  }
  const report = serious
    .map((v) => `${v.impact} ${v.id}: ${v.help}\n${v.nodes.slice(0, 5).map((n) => `    ${n.target.join(' ')}  ${n.failureSummary?.split('\n')[1] ?? ''}`).join('\n')}`)
    .join('\n');
  expect(serious.map((v) => v.id), `accessibility problems on the ${pageName} page:\n${report}`).toEqual([]);
}

/** The serious and critical axe violations of the page at rest. */
async function seriousViolations(page: Page) {
  // Elements fading in or out (a closing drawer, a toast) have colours
  // between states; judge the page at rest. Infinite animations (spinners)
  // never finish and are not waited for.
  await page.waitForFunction(
    () =>
      document
        .getAnimations()
        .every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity),
    undefined,
    { timeout: 10_000 },
  );
  // Legacy mode runs axe in the page itself: the default opens a new blank
  // page to finish every run (a renderer started per check, for frames from
  // other origins, which the dashboard has none of). Only violations are
  // read, so axe need not gather the passing nodes.
  const results = await new AxeBuilder({ page })
    .setLegacyMode()
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .options({ resultTypes: ['violations'] })
    .analyze();
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Screenshot and accessibility check of the page as it is now. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await snapshot(page, name);
  await expectAccessible(page, name);
}

export async function sessionToken(page: Page): Promise<string> {
  const token = await page.evaluate(() => localStorage.getItem('tablesmith.session'));
  expect(token, 'a session token in localStorage').toBeTruthy();
  return token!;
}

/** Calls the platform API with the page's session, returning the envelope's data. */
export async function platformGet<T>(page: Page, path: string): Promise<T> {
  const token = await sessionToken(page);
  const response = await page.request.get(path, { headers: { Authorization: `Bearer ${token}` } });
  expect(response.ok(), `GET ${path} answered ${response.status()}`).toBeTruthy();
  return ((await response.json()) as { data: T }).data;
}

export function projectIdFrom(url: string): string {
  const match = /\/projects\/([^/]+)\//.exec(url);
  expect(match, `a project id in ${url}`).toBeTruthy();
  return match![1];
}

/**
 * Opens a section from the project's navigation and waits for its page: the
 * router keeps the previous page on screen while the next one's code loads,
 * so a locator run at once can find the old page's field of the same name
 * (both API Docs and Test have an "Operation" select).
 */
export async function openSection(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name, exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name, exact: true })).toBeVisible({ timeout: 30_000 });
}

/** Replaces the text of a CodeMirror editor. */
export async function fillCodeEditor(page: Page, container: string, text: string): Promise<void> {
  const content = page.locator(`${container} .cm-content`);
  await content.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await content.fill(text);
}

/** Signs up a fresh account through the dashboard and creates a project; returns its id. */
export async function signUpWithProject(page: Page, projectName: string): Promise<string> {
  const stamp = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
  await page.goto('/signup');
  await page.getByLabel('Name').fill('Test Person');
  await page.getByLabel('E-mail').fill(`person.${stamp}@example.com`);
  await page.getByLabel('Password').fill('correct-horse-battery');
  await page.getByRole('button', { name: /Sign up/ }).click();
  await expect(page).toHaveURL(/\/projects$/);
  await page.getByRole('button', { name: 'New project' }).click();
  await page.getByLabel('Project name').fill(projectName);
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page).toHaveURL(/\/projects\/[^/]+\/schema$/);
  return projectIdFrom(page.url());
}

/** An account, a generated project and a read-write key, made through the platform API. */
export interface ApiProject {
  email: string;
  session: string;
  projectId: string;
  key: string;
}

/**
 * Signs up through the platform API, creates a project with `schema`,
 * generates it and makes a read-write key. `request` is a page's or a
 * test's APIRequestContext.
 */
export async function createApiProject(request: APIRequestContext, name: string, schema: unknown): Promise<ApiProject> {
  const email = `api.${Date.now()}${Math.floor(Math.random() * 1000)}@example.com`;
  const json = async (response: APIResponse, status: number) => {
    expect(response.status(), `${response.url()}: ${await response.text()}`).toBe(status);
    return ((await response.json()) as { data: Record<string, unknown> }).data;
  };
  const signup = await json(await request.post('/api/auth/signup', { data: { email, password: 'correct-horse-battery', name: 'API person' } }), 201);
  const session = signup.token as string;
  const auth = { Authorization: `Bearer ${session}` };
  const project = await json(await request.post('/api/projects', { headers: auth, data: { name, engine: 'postgres' } }), 201);
  const projectId = project.id as string;
  await json(await request.put(`/api/projects/${projectId}/schema`, { headers: auth, data: schema }), 200);
  await json(await request.post(`/api/projects/${projectId}/generate`, { headers: auth, data: {} }), 200);
  const key = await json(await request.post(`/api/projects/${projectId}/keys`, { headers: auth, data: { name: 'e2e', scope: 'read_write' } }), 201);
  return { email, session, projectId, key: key.key as string };
}

/**
 * Moves an account to another plan with `caddy tablesmith set-plan`, as an
 * operator would; scripts/e2e.sh says where its Caddy is. Returns false when
 * the server was not started by scripts/e2e.sh (the caller skips).
 */
export function setPlan(email: string, plan: string): boolean {
  const caddy = process.env.TABLESMITH_E2E_CADDY;
  if (!caddy || !process.env.TABLESMITH_DATABASE_URL) return false;
  execFileSync(caddy, ['tablesmith', 'set-plan', email, plan], { stdio: 'pipe' });
  return true;
}

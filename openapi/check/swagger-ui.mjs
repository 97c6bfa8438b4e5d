// Drives Swagger UI in Chromium like a person: opens /docs, authorizes
// with an API key, runs Try it out → Execute on create and list, and
// checks the 201 and 200 it shows. Started by the Go test
// TestSwaggerUITryItOutCreatesAndLists with a running server:
//   DOCS_URL=http://127.0.0.1:port/v1/<id>/docs API_KEY=... CHROMIUM=/usr/bin/chromium
//   [SCREENSHOT=path.png] node swagger-ui.mjs
import { chromium } from "playwright-core";

const docsURL = process.env.DOCS_URL;
const apiKey = process.env.API_KEY;
const title = "Try-it-out " + Date.now();

function fail(message) {
  throw new Error(message);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const problems = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
  // Generous: under CI the Go tests run with -race beside the browser tests,
  // and a starved renderer has taken over 20 s to settle after a click.
  page.setDefaultTimeout(45000);
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push("console: " + msg.text());
    // A missing input per type and format (issue 37): the page fills them in.
    if (msg.type() === "warning" && msg.text().includes("JsonSchema_")) problems.push("console warning: " + msg.text());
  });
  page.on("pageerror", (err) => problems.push("page error: " + err.message));
  page.on("requestfailed", (req) => problems.push("request failed: " + req.url()));
  // No request may leave the server: no CDN, no validator badge, no fonts.
  const origin = new URL(docsURL).origin;
  page.on("request", (req) => {
    const url = req.url();
    if (!url.startsWith(origin) && !url.startsWith("data:") && !url.startsWith("blob:")) problems.push("external request: " + url);
  });

  await page.goto(docsURL);
  await page.locator(".swagger-ui .info .title").waitFor();

  // Authorize with the API key; the dialog's field belongs to bearerAuth.
  await page.locator(".scheme-container button.authorize").click();
  const dialog = page.locator(".dialog-ux .modal-ux");
  await dialog.locator("input").first().fill(apiKey);
  await dialog.locator("button.authorize").click();
  await dialog.locator("button.btn-done").click();

  // Try it out → Execute on an operation; returns the status shown.
  async function execute(opId, body) {
    const op = page.locator(`[id$="-${opId}"].opblock`);
    await op.locator(".opblock-summary").first().click();
    await op.locator("button.try-out__btn").click();
    if (body !== undefined) {
      const editor = op.locator("textarea.body-param__text");
      await editor.fill(JSON.stringify(body, null, 2));
    }
    // Execute starts a fetch, never a navigation: not waiting after the click
    // (for the renderer to stop intercepting hits, which a starved page was
    // slow to do) leaves the wait to the response it shows, just below.
    await op.locator("button.execute").click({ noWaitAfter: true });
    const status = op.locator(".live-responses-table .response .response-col_status").first();
    await status.waitFor();
    const shown = (await status.innerText()).trim();
    const text = await op.locator(".live-responses-table .response-col_description pre").first().innerText();
    return { status: shown, body: text, op };
  }

  const created = await execute("createBook", { title, pages: 123, genre: "essay" });
  if (!created.status.startsWith("201")) fail(`create showed ${created.status}: ${created.body}`);
  if (!created.body.includes(title)) fail(`create's body lacks the title: ${created.body}`);

  const listed = await execute("listBooks");
  if (!listed.status.startsWith("200")) fail(`list showed ${listed.status}: ${listed.body}`);
  if (!listed.body.includes(title)) fail(`the list lacks the created record: ${listed.body}`);

  // The curl line shows the credential was sent as a bearer token.
  const curl = await listed.op.locator(".curl-command").first().innerText();
  if (!curl.includes("Authorization: Bearer " + apiKey)) fail(`the request was not authorized: ${curl}`);

  if (process.env.SCREENSHOT) await page.screenshot({ path: process.env.SCREENSHOT, fullPage: false });

  // persistAuthorization: a reload keeps the credential.
  await page.reload();
  await page.locator(".swagger-ui .info .title").waitFor();
  const stored = await page.evaluate(() => window.localStorage.getItem("authorized") || "");
  if (!stored.includes(apiKey)) fail("the authorization was not persisted across a reload");
  await page.locator(".scheme-container button.authorize.locked").waitFor();

  if (problems.length) fail("browser problems:\n" + problems.join("\n"));
  console.log("SWAGGER UI OK");
} finally {
  await browser.close();
}

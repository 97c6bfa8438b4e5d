// What every TypeScript client of the compatibility suite does against the
// live API, and the checks it makes. Each driver (fetch.ts, orval.ts,
// heyapi.ts) makes the calls through its own generated client and its own
// types; this file holds only what they share.

declare const process: { env: Record<string, string | undefined>; exit(code: number): never };

/** The API's root (the document's servers[0]) and a read_write key. */
export const apiBase = process.env.API_BASE ?? "";
export const apiKey = process.env.API_KEY ?? "";
/** Set when the calls go through Prism's validating proxy. */
export const behindValidatingProxy = process.env.VALIDATING_PROXY === "1";

/** A suffix that keeps unique columns unique when drivers share a project. */
export const run = Math.random().toString(36).slice(2, 8);

export function check(ok: unknown, what: string, got?: unknown): asserts ok {
  if (!ok) {
    console.error(`FAIL: ${what}${got === undefined ? "" : ": " + JSON.stringify(got)}`);
    process.exit(1);
  }
}

/** Ends a driver: the Go test looks for this line. */
export function done(client: string): void {
  console.log(`OK ${client}`);
}

/** A post with a value in every kind of column. */
export const post = {
  title: "Every column",
  body: "<p>Hello <b>there</b></p>",
  status: "published" as const,
  rating: 4.5,
  price: "12.50",
  published_at: "2026-01-02T03:04:05Z",
  publish_on: "2026-01-02",
  contact: "writer@example.com",
  website: "https://example.com/post",
  external_ref: "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
  metadata: { source: "compat", n: 1 },
  settings: { theme: "dark" },
  pin: "1234",
  views: 7,
  featured: true,
};

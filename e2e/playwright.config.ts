import { defineConfig } from '@playwright/test';

// Drives Debian's Chromium (never a downloaded browser) against a running
// Tablesmith at TABLESMITH_E2E_URL.
export const baseURL = process.env.TABLESMITH_E2E_URL ?? 'http://localhost:8080';

export default defineConfig({
  testDir: './tests',
  outputDir: './test-results',
  // The journey walks every page; on a loaded 2-core machine it can take minutes.
  timeout: 480_000,
  // Steps wait up to 30 s: the browser runs beside the Go tests on two
  // cores, and a renderer starved there took over 15 s to show a select or
  // a table row that a quiet machine shows in well under a second (CI,
  // 2026-11-29). A step that never happens still fails.
  expect: { timeout: 30_000 },
  // Two spec files at a time (each signs up its own accounts); the tests of
  // one file run in order. TABLESMITH_E2E_WORKERS=1 runs one file at a time.
  fullyParallel: false,
  workers: Number(process.env.TABLESMITH_E2E_WORKERS ?? 2),
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL,
    viewport: { width: 1280, height: 800 },
    actionTimeout: 30_000,
    navigationTimeout: 30_000,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.TABLESMITH_E2E_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
});

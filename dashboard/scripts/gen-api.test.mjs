// The committed platform.gen.ts must be what the Go tree's document yields
// today, so the dashboard's types and the served API cannot drift apart.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generate, generatedPath } from './gen-api.mjs';

describe('platform.gen.ts', () => {
  it('is what npm run gen:api makes from internal/platformhttp/openapi/platform.yaml', async () => {
    const committed = await readFile(generatedPath, 'utf8');
    const fresh = await generate();
    expect(committed === fresh, 'src/api/platform.gen.ts is stale: run npm run gen:api and commit it').toBe(true);
  }, 30_000);
});

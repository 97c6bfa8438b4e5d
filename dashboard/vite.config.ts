/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The dashboard is served by Caddy on the same origin as /api and /v1, so
// every request uses a relative URL. `npm run dev` proxies both to a
// running server (TABLESMITH_DEV_API, default http://localhost:8080).
const apiTarget = process.env.TABLESMITH_DEV_API ?? 'http://localhost:8080';

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      '/api': apiTarget,
      '/v1': apiTarget,
    },
  },
  build: {
    outDir: 'dist',
    chunkSizeWarningLimit: 3000,
  },
  test: {
    environment: 'node',
    include: ['src/**/*.test.ts', 'scripts/**/*.test.mjs'],
  },
});

/// <reference types="vitest/config" />
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import type { Plugin } from 'vite';

const backend = 'http://127.0.0.1:8000';
const root = dirname(fileURLToPath(import.meta.url));

/**
 * Writes dist/.vite/chunk-modules.json: for every emitted chunk, the source modules in it.
 * scripts/bundle-size.mjs reads it to prove that the participant entry's chunk graph holds
 * no chart code (and to report what each entry weighs).
 */
function chunkModules(): Plugin {
  return {
    name: 'qoelab-chunk-modules',
    apply: 'build',
    generateBundle(options, bundle) {
      const out: Record<string, string[]> = {};
      for (const [file, chunk] of Object.entries(bundle)) {
        if (chunk.type !== 'chunk') continue;
        out[file] = chunk.moduleIds.map((id) => relative(root, id.replace(/^\0/, '')));
      }
      const target = resolve(options.dir ?? resolve(root, 'dist'), '.vite', 'chunk-modules.json');
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, `${JSON.stringify(out, null, 1)}\n`);
    },
  };
}

// Two entries: index.html (researcher console and results explorer) and participant.html
// (the participant's screens, which must never load chart code). Django serves the built
// files under /static/ and returns the right HTML shell per route, so all asset URLs in the
// build start with /static/.
export default defineConfig({
  base: '/static/',
  plugins: [react(), chunkModules()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    manifest: true,
    rollupOptions: {
      input: {
        index: resolve(root, 'index.html'),
        participant: resolve(root, 'participant.html'),
      },
    },
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
    proxy: {
      '/api': { target: backend, changeOrigin: false },
      '/admin': { target: backend, changeOrigin: false },
      '/healthz': { target: backend, changeOrigin: false },
    },
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
    unstubGlobals: true,
    // A bound against a hang (see src/test/setup.ts), well above Testing Library's wait.
    testTimeout: 60_000,
  },
});

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources, so tests need no build.
  resolve: {
    alias: [
      { find: '@agov/domain/hash-chain', replacement: source('./packages/domain/src/audit/hash-chain.ts') },
      { find: /^@agov\/(config|db|domain|jobs|runtime)$/, replacement: source('./packages/$1/src/index.ts') },
    ],
  },
  test: {
    include: ['apps/*/test/**/*.test.ts', 'apps/web/src/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    globalSetup: ['./test/global-setup.ts'],
    // Fails a test whose app answered something its OpenAPI document does not describe.
    setupFiles: ['./apps/api/test/contract/setup.ts'],
    testTimeout: 30_000,
    // Browser tests poll the page for what the app shows once a request returns or a list
    // refreshes; on a busy machine that can take longer than the default second.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 120_000,
  },
});

import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (Node, in-memory linked transports, no browser) and
 * `e2e` (real CLI, real MCP client, real Chromium through playwright-core).
 * E2E files run one at a time: the machine has 2 cores and each file starts
 * a server and a browser.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'scripts/**/*.test.ts', 'demo/src/**/*.test.ts', 'bench/lib/**/*.test.mjs'],
          environment: 'node',
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});

import { defineConfig } from 'vitest/config';

// Two projects: Node-side code (shared, main services, sandbox) and the renderer under jsdom.
// Keychain tests need a Secret Service; `npm test` runs vitest inside scripts/with-keyring.sh.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/unit/**/*.test.ts', 'test/sandbox/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'renderer',
          environment: 'jsdom',
          include: ['test/renderer/**/*.test.{ts,tsx}'],
          testTimeout: 15_000,
        },
      },
    ],
  },
});

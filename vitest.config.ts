import { defineConfig } from 'vitest/config';
import type { TestProjectInlineConfiguration } from 'vitest/config';

// One project per kind of test, so each runs alone (`npx vitest run --project integration`):
// - unit: pure logic, no network, no sandbox, no keychain;
// - integration: the real services, the sandbox over HTTP, the keychain, real sockets;
// - sandbox: the sandbox bank's conformance to the API, over real HTTP;
// - reliability: the fault-injection scenarios (`npm run test:soak` runs them at full counts);
// - repo: checks of the repository itself (packaging config, IPC surface, dependency rules, the
//   built shell and preload; those need `npm run build`);
// - renderer: components and stores under jsdom;
// - bench: the bench smoke run (`npm run bench` with BENCH_SMOKE=1: every suite at tiny counts, in
//   a process of its own; needs `npm run build`);
// - team: the team server against real PostgreSQL (a throwaway cluster from the distribution's
//   binaries) and the development OpenID provider, started once for the project.
// Keychain tests need a Secret Service; `npm test` runs vitest inside scripts/with-keyring.sh.
function nodeProject(name: string): TestProjectInlineConfiguration {
  return {
    test: {
      name,
      environment: 'node',
      include: [`test/${name}/**/*.test.ts`],
      testTimeout: 30_000,
      hookTimeout: 30_000,
    },
  };
}

export default defineConfig({
  test: {
    projects: [
      nodeProject('unit'),
      nodeProject('integration'),
      nodeProject('sandbox'),
      nodeProject('reliability'),
      nodeProject('repo'),
      nodeProject('bench'),
      {
        test: {
          name: 'team',
          environment: 'node',
          include: ['test/team/**/*.test.ts'],
          globalSetup: ['test/team/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
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

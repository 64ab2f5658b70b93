/**
 * Import rules of Treasury Desk, checked by dependency-cruiser in `npm test` (npm run lint:deps).
 * Type-only imports count: a cycle through types is still a cycle a reader has to untangle.
 */
const shell = '^src/main/(index\\.ts|electron/)';
/**
 * The floors of main, from the bottom: a lower floor never imports a higher one.
 * 1. infra and the IPC transport (know no bank and no feature), 2. the bank protocol,
 * 3. profiles and the session, 4. the features, 5. the composition root, 6. the Electron shell.
 */
const floors = {
  infra: '^src/main/(infra|ipc)/',
  bank: '^src/main/bank/',
  profiles: '^src/main/(profiles|session)/',
  features: '^src/main/(returns|crypto|rfis|rfi-answers|locker|activity|case-files|watch|desktop|team)/',
  root: '^src/main/((services|handlers|core)\\.ts$|root/)',
};
const electron = '^node_modules/electron/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules form no import cycle, type-only imports included.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'electron-only-in-the-shell',
      severity: 'error',
      comment:
        'Only the Electron shell (src/main/index.ts, src/main/electron/) and the preload import electron, types included; everything else runs in plain Node or the browser and gets Electron features through small interfaces.',
      from: { path: '^src/', pathNot: [shell, '^src/preload/'] },
      to: { path: electron },
    },
    {
      name: 'shared-is-pure',
      severity: 'error',
      comment:
        'src/shared runs in every process: no Node built-in, and nothing from main, sandbox, preload or renderer.',
      from: { path: '^src/shared/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'shared-imports-only-shared',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^src/(main|sandbox|preload|renderer)/' },
    },
    {
      name: 'renderer-reaches-main-only-through-the-contract',
      severity: 'error',
      comment: 'The renderer is a web page: no Node built-in, no main, sandbox or preload code.',
      from: { path: '^src/renderer/' },
      to: { path: '^src/(main|sandbox|preload)/' },
    },
    {
      name: 'renderer-has-no-node',
      severity: 'error',
      from: { path: '^src/renderer/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'preload-imports-only-electron-and-shared',
      severity: 'error',
      from: { path: '^src/preload/' },
      to: { pathNot: ['^src/(preload|shared)/', electron] },
    },
    {
      name: 'sandbox-is-the-bank',
      severity: 'error',
      comment: 'The sandbox bank stands alone: it knows the shared wire schemas, never the app.',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/(main|preload|renderer)/' },
    },
    {
      name: 'team-server-stands-alone',
      comment:
        'The team server is a server of its own: it knows the shared wire schemas, never the app (main, preload, renderer) or the sandbox bank.',
      from: { path: '^src/team-server/' },
      to: { path: '^src/(main|preload|renderer|sandbox)/' },
    },
    {
      name: 'main-knows-no-renderer',
      severity: 'error',
      from: { path: '^src/main/' },
      to: { path: '^src/(renderer|preload)/' },
    },
    {
      name: 'infra-floor-knows-nothing-above',
      severity: 'error',
      comment: 'infra and the IPC transport know no bank, profile, feature, root or shell.',
      from: { path: floors.infra },
      to: { path: [floors.bank, floors.profiles, floors.features, floors.root, shell] },
    },
    {
      name: 'bank-floor-knows-nothing-above',
      severity: 'error',
      comment: 'The bank protocol knows infra only: no profile, feature, root or shell.',
      from: { path: floors.bank },
      to: { path: [floors.profiles, floors.features, floors.root, shell] },
    },
    {
      name: 'profiles-floor-knows-no-feature',
      severity: 'error',
      comment: 'Profiles and the session know infra and the bank: no feature, root or shell.',
      from: { path: floors.profiles },
      to: { path: [floors.features, floors.root, shell] },
    },
    {
      name: 'features-know-no-root',
      severity: 'error',
      comment:
        'A feature declares the narrow dependencies it needs: it never imports the composition root (services.ts, handlers.ts, core.ts) or the shell.',
      from: { path: floors.features },
      to: { path: [floors.root, shell] },
    },
    {
      name: 'only-the-shell-imports-the-root',
      severity: 'error',
      comment: 'Only the shell (and tests) import the composition root.',
      from: { path: '^src/', pathNot: [shell, floors.root] },
      to: { path: floors.root },
    },
    {
      name: 'no-unresolvable-imports',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/renderer/src/env\\.d\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
  },
};

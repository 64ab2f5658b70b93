/**
 * The app's identity, one source for the shell (setAppUserModelId, notifications), the packaging
 * config (electron-builder.yml `appId`, checked by test/repo/packaging.test.ts) and the logs.
 */
export const appId = 'com.treasurydesk.desktop';
export const productName = 'Treasury Desk';

/**
 * Loaded with `node --import tsx --import <this file>` before out/main/index.js: every
 * `import 'electron'` (ES modules, through hooks.mjs) and `require('electron')` (CommonJS, e.g.
 * electron-log) resolves to the double in electron.ts.
 */
import Module, { register } from 'node:module';
import { fileURLToPath } from 'node:url';

const doubleUrl = new URL('./electron.ts', import.meta.url);
register('./hooks.mjs', import.meta.url, { data: { doubleUrl: doubleUrl.href } });

type ResolveFilename = (request: string, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: ResolveFilename };
const resolveFilename = loader._resolveFilename;
const doublePath = fileURLToPath(doubleUrl);
loader._resolveFilename = function (request, ...rest) {
  return request === 'electron' ? doublePath : resolveFilename.call(this, request, ...rest);
};

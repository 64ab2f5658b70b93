/**
 * The shared schemas run in the renderer too. Zod compiles object parsers with `new Function`
 * unless told not to, and merely probing for that is an eval the renderer's CSP (no
 * 'unsafe-eval') refuses and reports. The interpreter is fast enough for the renderer's inputs.
 * Imported first by main.tsx, before any schema parses.
 *
 * Zod keeps its global configuration on `globalThis.__zod_globalConfig` (so that every copy of zod
 * in a page shares it) and adopts an object already there when its core loads. Setting it here,
 * instead of calling `config()` from `zod/v4/core`, keeps zod's core (about 3 KiB gzipped) out of
 * the first screen, which parses nothing; the screens that parse load zod later and find it set.
 * test/unit/zod-jitless.test.ts fails if a zod upgrade stops reading it.
 */
const host = globalThis as { __zod_globalConfig?: Record<string, unknown> };
host.__zod_globalConfig = { ...host.__zod_globalConfig, jitless: true };

export {};

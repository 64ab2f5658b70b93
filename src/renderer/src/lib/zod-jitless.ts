import { config } from 'zod/v4/core';

/**
 * The shared schemas run in the renderer too. Zod compiles object parsers with `new Function`
 * unless told not to, and merely probing for that is an eval the renderer's CSP (no
 * 'unsafe-eval') refuses and reports. The interpreter is fast enough for the renderer's inputs.
 * Imported first by main.tsx, before any schema parses.
 */
config({ jitless: true });

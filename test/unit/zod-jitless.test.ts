import { expect, it } from 'vitest';

it('the renderer’s jitless setting, made before zod loads, is the configuration zod then uses', async () => {
  await import('../../src/renderer/src/lib/zod-jitless');
  const { config } = await import('zod/v4/core');
  expect(config().jitless).toBe(true);
  // And a schema built afterwards parses (by the interpreter, as the renderer's CSP requires).
  const { z } = await import('zod');
  expect(z.object({ a: z.string() }).parse({ a: 'x' })).toEqual({ a: 'x' });
});

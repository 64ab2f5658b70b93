import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { channels, events } from '../../src/shared/ipc/contract';

/**
 * The whole IPC surface as JSON Schema. A new or changed channel changes this snapshot, so it
 * shows up in review. Update with: npx vitest run -u test/repo/ipc-surface.test.ts
 */
function schema(s: z.ZodType): unknown {
  return z.toJSONSchema(s, { unrepresentable: 'any', io: 'input' });
}

describe('IPC surface', () => {
  it('matches the reviewed snapshot', async () => {
    const surface = {
      channels: Object.fromEntries(
        Object.entries(channels)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, def]) => [
            name,
            { summary: def.summary, args: schema(def.args), result: schema(def.result) },
          ]),
      ),
      events: Object.fromEntries(
        Object.entries(events)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, def]) => [name, { summary: def.summary, payload: schema(def.payload) }]),
      ),
    };
    await expect(JSON.stringify(surface, null, 2) + '\n').toMatchFileSnapshot(
      './__snapshots__/ipc-surface.json',
    );
  });

  it('every channel argument schema refuses unknown keys', () => {
    for (const [name, def] of Object.entries(channels)) {
      const probe = def.args.safeParse({ __proto__: { polluted: true }, unexpected_key: 1 });
      expect(probe.success, `${name} accepted an unknown key`).toBe(false);
    }
  });
});

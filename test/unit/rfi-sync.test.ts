import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src/main/ipc/dispatcher';
import type { Dispatch } from '../../src/main/ipc/dispatcher';
import { channels } from '../../src/shared/ipc/contract';
import type { ChannelName, ChannelResult } from '../../src/shared/ipc/contract';
import type { Envelope } from '../../src/shared/ipc/errors';
import { startServices } from './support/services';
import type { TestServices } from './support/services';

/** The RFI cache end to end: services on the embedded sandbox, through the dispatcher. */
let t: TestServices;
let dispatch: Dispatch;
const sender = { url: 'app://desk/index.html', isMainFrame: true };

async function call<C extends ChannelName>(channel: C, args?: unknown): Promise<ChannelResult<C>> {
  const env = (await dispatch(channel, args, sender)) as Envelope<ChannelResult<C>>;
  if (!env.ok) throw Object.assign(new Error(env.error.message), env.error);
  expect(channels[channel].result.safeParse(env.value).success, `${channel} matches the contract`).toBe(true);
  return env.value;
}

beforeAll(async () => {
  t = await startServices({ rfis: { poll: { intervalMs: 3_600_000 } } });
  dispatch = createDispatcher({
    handlers: t.services.handlers,
    isTrustedSender: () => true,
    log: t.services.log,
  });
  await t.services.rfis.ready();
});
afterAll(() => t.close());

describe('rfis.list / rfis.get', () => {
  it('lists every seeded RFI of legal entity A from the cache with derived fields', async () => {
    const seeded = t.services.sandbox!.fixtures.legal_entities[0]!.rfi_ids;
    const res = await call('rfis.list');
    expect(res.items.map((i) => i.id).sort()).toEqual([...seeded].sort());
    expect(res.total).toBe(seeded.length);
    expect(res.counts.total).toBe(seeded.length);
    expect(res.sync.lastMode).toBe('full');
    for (const row of res.items) {
      expect(['on_track', 'at_risk', 'breached', 'none']).toContain(row.band);
      expect(row.unread).toBe(true);
    }
  });

  it('answers one RFI with its questions, and not_found for an unknown id', async () => {
    const list = await call('rfis.list');
    const first = list.items[0]!;
    const d = await call('rfis.get', { id: first.id });
    expect(d.rfi.id).toBe(first.id);
    expect(d.rfi.questions.length).toBe(first.questionTotal);
    expect(d.fromCache).toBe(true);
    await expect(call('rfis.get', { id: 'rfi_nope' })).rejects.toMatchObject({ kind: 'not_found' });
  });
});

/**
 * Calls a channel as the renderer does, through the dispatcher: the arguments are checked against
 * the channel's schema, the result against the contract's, and a failure arrives as the typed
 * error the page would get.
 */
import { expect } from 'vitest';
import { createDispatcher } from '../../src/main/ipc/dispatcher';
import type { AppError, Envelope } from '../../src/shared/ipc/errors';
import type { ChannelName, ChannelResult } from '../../src/shared/ipc/contract';
import { channels } from '../../src/shared/ipc/contract';
import type { TestServices } from './services';

const sender = { url: 'app://desk/index.html', isMainFrame: true };

export async function ipc<C extends ChannelName>(
  s: TestServices,
  channel: C,
  args: unknown,
): Promise<ChannelResult<C>> {
  const dispatch = createDispatcher({
    handlers: s.services.handlers,
    isTrustedSender: () => true,
    log: s.services.log,
  });
  const env = (await dispatch(channel, args, sender)) as Envelope<ChannelResult<C>>;
  if (!env.ok) throw Object.assign(new Error(env.error.message), { desk: env.error });
  expect(channels[channel].result.safeParse(env.value).success).toBe(true);
  return env.value;
}

/** The typed error a call answers (the test fails if it succeeds). */
export async function ipcError(s: TestServices, channel: ChannelName, args: unknown): Promise<AppError> {
  try {
    await ipc(s, channel, args);
  } catch (err) {
    return (err as { desk: AppError }).desk;
  }
  throw new Error(`${channel} succeeded`);
}

import type { z } from 'zod';
import { channels, isChannelName } from '../../shared/ipc/contract';
import type { ChannelName, ChannelResult, ParsedArgs } from '../../shared/ipc/contract';
import { AppFailure } from '../../shared/ipc/errors';
import type { AppError, Envelope } from '../../shared/ipc/errors';
import type { Logger } from '../infra/log';
import { originOf } from '../infra/origins';

/** Who is calling, as the transport saw it (Electron's senderFrame, Playwright's source frame). */
export interface SenderInfo {
  /** URL of the frame that sent the call. */
  url: string | undefined;
  /** Whether that frame is its page's top-level frame. */
  isMainFrame: boolean;
}

export type Handler<C extends ChannelName> = (args: ParsedArgs<C>) => Promise<ChannelResult<C>>;
export type Handlers = { [C in ChannelName]: Handler<C> };

export type Dispatch = (channel: unknown, args: unknown, sender: SenderInfo) => Promise<Envelope<unknown>>;

/**
 * Only the app's own top-level document may call main: a frame embedded in it, or any page
 * that navigated elsewhere, is refused.
 */
export function createSenderPolicy(allowedOrigins: readonly string[]): (sender: SenderInfo) => boolean {
  const allowed = new Set(allowedOrigins.map((o) => originOf(o)).filter((o): o is string => o !== null));
  return (sender) => sender.isMainFrame && allowed.has(originOf(sender.url) ?? '');
}

function describeIssue(issue: z.core.$ZodIssue): { field: string; message: string } {
  const field = issue.path.map(String).join('.').slice(0, 200);
  // Bounded: zod lists every unrecognized key, and a hostile caller can send thousands.
  const text = issue.message.length > 300 ? `${issue.message.slice(0, 300)}…` : issue.message;
  return { field, message: field ? `${field}: ${text}` : text };
}

export interface DispatcherOptions {
  handlers: Handlers;
  isTrustedSender: (sender: SenderInfo) => boolean;
  log: Logger;
}

/**
 * The main side of the contract, independent of the transport: sender check, argument validation,
 * handler, and every failure turned into a AppError the renderer can show.
 */
export function createDispatcher({ handlers, isTrustedSender, log }: DispatcherOptions): Dispatch {
  return async (channelName, rawArgs, sender) => {
    if (!isTrustedSender(sender)) {
      log.warn('ipc: refused call from untrusted sender', { channel: String(channelName), url: sender.url });
      return fail({ kind: 'forbidden_sender', message: 'Calls are accepted only from the app window.' });
    }
    if (!isChannelName(channelName)) {
      return fail({
        kind: 'unknown_channel',
        message: `No such channel: ${String(channelName).slice(0, 100)}`,
      });
    }
    // A contract channel without a handler (only possible in a build that skipped typecheck) is
    // refused as such, whatever the arguments, so it cannot pass for a validation problem.
    const handler = handlers[channelName] as unknown as ((args: unknown) => Promise<unknown>) | undefined;
    if (typeof handler !== 'function') {
      log.error('ipc: contract channel without a handler', { channel: channelName });
      return fail({ kind: 'unknown_channel', message: `No handler for ${channelName}` });
    }
    const def = channels[channelName];
    const parsed = def.args.safeParse(rawArgs);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      const { field, message } = first ? describeIssue(first) : { field: '', message: 'Invalid argument' };
      return fail({ kind: 'invalid_argument', message: `${channelName}: ${message}`, field });
    }
    try {
      const value = await handler(parsed.data);
      return { ok: true, value: value === undefined ? null : value };
    } catch (err) {
      if (err instanceof AppFailure) return fail(err.toAppError());
      log.error('ipc: handler failed', { channel: channelName, error: err });
      return fail({
        kind: 'internal',
        message: 'Something went wrong in the app. The details are in the log.',
      });
    }
  };
}

function fail(error: AppError): Envelope<never> {
  return { ok: false, error };
}

/**
 * treasury-desk:// links, parsed strictly in main (pure: no electron). A link only ever names a
 * screen to show; the shell pushes `desktop.openLink` and the page navigates. Anything else is
 * refused with a reason the shell logs: other schemes, credentials, ports, queries, fragments,
 * extra segments, percent-encoding, over-long input, and ids the reading channel would refuse
 * (the same zod schemas as IPC: rfis.get, returns.lookup, crypto.order).
 */
import { channels } from '../../../shared/ipc/contract';
import type { LinkRoute } from '../../../shared/ipc/channels/desktop';

export const linkScheme = 'treasury-desk';
/** Longer input is refused before any parsing. */
export const maxLinkLength = 512;

export type LinkParse = { ok: true; route: LinkRoute } | { ok: false; reason: string };

const idSchemas = {
  rfis: { screen: 'rfi', schema: channels['rfis.get'].args.shape.id },
  transactions: { screen: 'transaction', schema: channels['returns.lookup'].args.shape.transactionId },
  exchange: { screen: 'exchange', schema: channels['crypto.order'].args.shape.orderId },
} as const;

/** Sub-screens of #/exchange: an "order id" equal to one of them would open another screen. */
const reservedExchangeIds = new Set(['new', 'accounts']);

// scheme (any case), "//", host = one of the three names, "/", one segment, an optional trailing
// "/" (Windows adds one to protocol URLs). No "@", "?", "#", "%", "\" in the id.
const shape = /^treasury-desk:\/\/(rfis|transactions|exchange)\/([^/?#@%\\]+)\/?$/i;

export function parseLink(input: unknown): LinkParse {
  if (typeof input !== 'string') return { ok: false, reason: 'not a string' };
  if (input.length > maxLinkLength) return { ok: false, reason: 'too long' };
  if (!input.toLowerCase().startsWith(`${linkScheme}://`))
    return { ok: false, reason: 'not a treasury-desk link' };
  const match = shape.exec(input);
  if (!match) return { ok: false, reason: 'unknown link shape' };
  const kind = match[1]!.toLowerCase() as keyof typeof idSchemas;
  const raw = match[2]!;
  const { screen, schema } = idSchemas[kind];
  const parsed = schema.safeParse(raw);
  // The schemas trim; a link whose id needed trimming is not one we made.
  if (!parsed.success || parsed.data !== raw) return { ok: false, reason: `invalid ${screen} id` };
  if (screen === 'exchange' && reservedExchangeIds.has(raw))
    return { ok: false, reason: 'reserved exchange id' };
  return { ok: true, route: { screen, id: raw } };
}

/**
 * The link in a command line (a second instance's argv on Windows/Linux, or this process's own at
 * a cold start): the first argument with the scheme. Null when there is none.
 */
export function linkInArgv(argv: readonly string[]): string | null {
  for (const arg of argv) {
    if (typeof arg === 'string' && arg.slice(0, linkScheme.length + 1).toLowerCase() === `${linkScheme}:`)
      return arg;
  }
  return null;
}

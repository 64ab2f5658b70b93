/**
 * What happens to a link handed to the app (pure: the shell and the browser harness give it their
 * `open`): parsed strictly; an unknown shape is logged (its reason and length, not its text) and
 * ignored; a valid one is handed to `open`, which only ever navigates.
 */
import type { LinkRoute } from '../../../shared/ipc/channels/desktop';
import type { Logger } from '../../infra/log';
import { parseLink } from './parse';

export type LinkVia = 'argv' | 'second-instance' | 'open-url';

export function createLinkHandler(deps: {
  log: Pick<Logger, 'info' | 'warn'>;
  open(route: LinkRoute): void;
}): (raw: string, via: LinkVia) => boolean {
  return (raw, via) => {
    const parsed = parseLink(raw);
    if (!parsed.ok) {
      deps.log.warn('links: ignored', { via, reason: parsed.reason, length: raw.length });
      return false;
    }
    deps.log.info('links: open', { via, screen: parsed.route.screen });
    deps.open(parsed.route);
    return true;
  };
}

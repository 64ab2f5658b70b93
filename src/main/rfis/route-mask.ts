/**
 * The receiver's route paths (`/webhooks/rfi/<128 random bits>`, one per watched profile) are the
 * only thing keeping a local process from posting to a profile's route; the page never needs them.
 * Whatever goes to the page (the receiver's status, the bank's webhook configuration, audit
 * targets) shows such a URL with the secret part hidden.
 */
const ROUTE_PREFIX = '/webhooks/rfi/';

/** `http://127.0.0.1:41234/webhooks/rfi/…` for a receiver route URL; anything else unchanged. */
export function maskRouteUrl(url: string): string;
export function maskRouteUrl(url: string | null): string | null;
export function maskRouteUrl(url: string | null): string | null {
  if (url === null) return null;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  if (!loopback || !u.pathname.startsWith(ROUTE_PREFIX) || u.pathname.length === ROUTE_PREFIX.length)
    return url;
  return `${u.origin}${ROUTE_PREFIX}…`;
}

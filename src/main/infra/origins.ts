/**
 * Origins, one place for every rule about them: the origin of any URL as text (the IPC sender
 * check compares app: URLs, which have no WHATWG origin), loopback hosts, and the origin of a bank
 * base URL (https, or plain http to loopback only).
 */

/** Scheme and host of a URL, compared as text; null for one that does not parse. */
export function originOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return null;
  }
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return loopbackHosts.has(hostname.toLowerCase());
}

/** The origin of a bank base URL (https, or http on loopback, no credentials); null if it is not one. */
export function bankOrigin(raw: string): string | null {
  try {
    const u = new URL(raw);
    if (u.username || u.password) return null;
    if (u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname))) return u.origin;
    return null;
  } catch {
    return null;
  }
}

/**
 * The sandbox's two local-process guards, kept out of the bank's resource logic:
 *
 * - Host header: only the loopback names of the port it listens on (127.0.0.1, localhost, [::1]),
 *   the listen address itself, and any extra names the operator allows (`allowedHosts`).
 *   A page that DNS-rebinds its own name to 127.0.0.1 sends `Host: <its name>:PORT` and is refused
 *   before any routing.
 * - Control secret: the routes with auth `control` (fixtures with every token, clock, staff RFI
 *   actions, inspection) need the per-run secret in the `Sandbox-Control-Secret` header. It is
 *   compared in constant time (both sides hashed to 32 bytes first, so the length leaks nothing).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh control secret: 32 random bytes, base64url. */
export function newControlSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Visible ASCII, 16 to 256 characters (a header value an operator can type or paste). */
export const CONTROL_SECRET_RE = /^[\x21-\x7e]{16,256}$/;

export function controlSecretMatches(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** Every `host:port` value (lower case) the Host header may carry. */
export function allowedHostValues(
  listenHost: string,
  port: number,
  extra: readonly string[] = [],
): Set<string> {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]']);
  const listen = listenHost.trim().toLowerCase();
  // The listen address itself (an IP literal, or a wildcard reached as such): never a name a
  // rebinding page controls.
  if (listen) names.add(bracketed(listen));
  for (const e of extra) {
    const v = e.trim().toLowerCase();
    if (v) names.add(bracketed(v));
  }
  return new Set([...names].map((n) => `${n}:${port}`));
}

export function hostAllowed(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (typeof header !== 'string' || header === '') return false;
  return allowed.has(header.trim().toLowerCase());
}

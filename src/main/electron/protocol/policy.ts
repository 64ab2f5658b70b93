/**
 * Security rules of the app's windows, as data and pure functions so they are tested in Node and
 * applied by both the Electron shell and the browser harness.
 */

/** The renderer is served from this custom scheme, never from file://. */
export const appScheme = 'app';
export const appHost = 'treasury-desk';
export const appOrigin = `${appScheme}://${appHost}`;
export const appEntryUrl = `${appOrigin}/index.html`;

/**
 * Content Security Policy of every renderer document: nothing inline, nothing remote. The
 * renderer makes no network request of its own (all goes through main), so connect-src is 'self'
 * only for the dev server's module graph.
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "worker-src 'none'",
  "manifest-src 'none'",
].join('; ');

/** Headers served with every renderer asset. */
export const securityHeaders: Readonly<Record<string, string>> = {
  'Content-Security-Policy': contentSecurityPolicy,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** Hosts an analyst may be sent to in the system browser (help pages of the bank and standards). */
export const externalLinkAllowList: readonly string[] = ['www.swift.com', 'www.iso20022.org'];

/**
 * Whether a link may be opened in the system browser: https only, no credentials in the URL, and
 * a host on the allow-list. Everything else is refused (never opened inside the app).
 */
export function isAllowedExternalUrl(
  url: string,
  allowList: readonly string[] = externalLinkAllowList,
): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol !== 'https:' || u.username || u.password || u.port) return false;
  return allowList.includes(u.hostname.toLowerCase());
}

/** Whether a navigation stays inside the app's own document set (in-app routing only). */
export function isInAppNavigation(url: string, allowedOrigins: readonly string[]): boolean {
  try {
    const u = new URL(url);
    return allowedOrigins.some((o) => {
      const a = new URL(o);
      return u.protocol === a.protocol && u.host === a.host;
    });
  } catch {
    return false;
  }
}

/** Permissions (camera, notifications from web APIs, geolocation, …) are all denied: main owns such features. */
export function isPermissionAllowed(_permission: string): boolean {
  return false;
}

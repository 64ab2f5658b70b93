import path from 'node:path';
import { appOrigin } from './policy';

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

export type AssetResolution =
  | { ok: true; filePath: string; contentType: string }
  | { ok: false; status: 400 | 403 | 404; reason: string };

/**
 * Maps a request for the app's own scheme to a file under the renderer's build folder. Anything
 * that would leave that folder (.., encoded separators, absolute paths), other hosts, and unknown
 * file types are refused. A path without an extension is the single-page app's index.
 */
export function resolveAppAsset(
  rootDir: string,
  requestUrl: string,
  origin: string = appOrigin,
): AssetResolution {
  let u: URL;
  try {
    u = new URL(requestUrl);
  } catch {
    return { ok: false, status: 400, reason: 'malformed URL' };
  }
  if (`${u.protocol}//${u.host}` !== origin) return { ok: false, status: 403, reason: 'foreign origin' };
  let pathname: string;
  try {
    pathname = decodeURIComponent(u.pathname);
  } catch {
    return { ok: false, status: 400, reason: 'malformed path' };
  }
  if (pathname.includes('\0') || pathname.includes('\\'))
    return { ok: false, status: 400, reason: 'malformed path' };
  const segments = pathname.split('/').filter((s) => s.length > 0);
  if (segments.some((s) => s === '..' || s === '.'))
    return { ok: false, status: 403, reason: 'path traversal' };
  const relative =
    segments.length === 0 || !path.extname(segments[segments.length - 1] ?? '')
      ? 'index.html'
      : segments.join('/');
  const root = path.resolve(rootDir);
  const filePath = path.resolve(root, relative);
  if (filePath !== root && !filePath.startsWith(root + path.sep))
    return { ok: false, status: 403, reason: 'path traversal' };
  const contentType = contentTypes[path.extname(filePath).toLowerCase()];
  if (!contentType) return { ok: false, status: 404, reason: 'unknown file type' };
  return { ok: true, filePath, contentType };
}

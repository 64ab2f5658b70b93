import { net, protocol } from 'electron';
import { pathToFileURL } from 'node:url';
import { resolveAppAsset } from './resolve';
import { appOrigin, appScheme, securityHeaders } from './policy';

/** Must run before the app is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: appScheme,
      privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
    },
  ]);
}

/** Serves the built renderer from app://treasury-desk/ with the security headers. */
export function serveRenderer(rendererDir: string): void {
  protocol.handle(appScheme, async (request) => {
    const asset = resolveAppAsset(rendererDir, request.url, appOrigin);
    if (!asset.ok) return new Response(asset.reason, { status: asset.status, headers: securityHeaders });
    // A missing file is a network error (net::ERR_FILE_NOT_FOUND), not a 404 answer: both end here.
    const file = await net.fetch(pathToFileURL(asset.filePath).href).catch(() => null);
    if (!file?.ok) return new Response('not found', { status: 404, headers: securityHeaders });
    return new Response(file.body, {
      status: 200,
      headers: { ...securityHeaders, 'Content-Type': asset.contentType },
    });
  });
}

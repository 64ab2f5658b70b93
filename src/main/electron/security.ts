import { app, session, shell } from 'electron';
import type { WebContents } from 'electron';
import { isAllowedExternalUrl, isInAppNavigation, isPermissionAllowed } from '../security-policy';

/**
 * Applies the Electron security checklist to every web contents the app creates: no navigation
 * away from the app, no new windows (allow-listed https links go to the system browser), no
 * <webview>, and every permission request denied.
 */
export function hardenApp(allowedOrigins: () => readonly string[]): void {
  session.defaultSession.setPermissionRequestHandler((_wc, permission, callback) => {
    callback(isPermissionAllowed(permission));
  });
  session.defaultSession.setPermissionCheckHandler((_wc, permission) => isPermissionAllowed(permission));

  app.on('web-contents-created', (_event, contents: WebContents) => {
    contents.on('will-navigate', (event, url) => {
      if (!isInAppNavigation(url, allowedOrigins())) event.preventDefault();
    });
    contents.on('will-redirect', (event, url) => {
      if (!isInAppNavigation(url, allowedOrigins())) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      if (isAllowedExternalUrl(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
  });
}

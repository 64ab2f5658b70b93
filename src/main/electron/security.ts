import { app, session, shell } from 'electron';
import type { Session, WebContents } from 'electron';
import { hardenSession, hardenWebContents } from './window/hardening';
import type { SessionLike, WebContentsLike } from './window/hardening';
import { isAllowedExternalUrl } from './protocol/policy';

/**
 * Applies the Electron security checklist (docs/security.md) to the default session and to every
 * web contents the app creates. The rules themselves live in src/main/electron/window/hardening.ts.
 */
export function hardenApp(
  allowedOrigins: () => readonly string[],
  onBlocked?: (what: string, url: string) => void,
): void {
  const hardenOne = (ses: Session): void => hardenSession(ses as unknown as SessionLike, { onBlocked });
  hardenOne(session.defaultSession);
  app.on('session-created', hardenOne);

  app.on('web-contents-created', (_event, contents: WebContents) => {
    hardenWebContents(contents as unknown as WebContentsLike, {
      allowedOrigins,
      onBlocked,
      openExternal: (url) => {
        // Checked again right before the call: never hand the OS an unchecked URL.
        if (isAllowedExternalUrl(url)) void shell.openExternal(url);
      },
    });
  });
}

/**
 * The Electron security checklist's runtime rules, written against the few Electron shapes they
 * need (structural types, no electron import) so test/unit/window-shell.test.ts drives them
 * with fakes: navigation, redirects and frame navigation stay in the app, new windows are refused
 * (allow-listed https links go to the system browser), <webview> is refused, and every
 * permission, device and display-capture request is denied.
 */
import { isAllowedExternalUrl, isInAppNavigation, isPermissionAllowed } from '../protocol/policy';

interface Preventable {
  preventDefault(): void;
}

type DeviceSelect = (event: Preventable, details: unknown, callback: (id: string) => void) => void;

export interface SessionLike {
  setPermissionRequestHandler(
    handler: (wc: unknown, permission: string, callback: (granted: boolean) => void) => void,
  ): void;
  setPermissionCheckHandler(handler: (wc: unknown, permission: string) => boolean): void;
  setDevicePermissionHandler(handler: (details: unknown) => boolean): void;
  setDisplayMediaRequestHandler(
    handler: (request: unknown, callback: (streams: object) => void) => void,
  ): void;
  on(event: 'select-hid-device' | 'select-serial-port' | 'select-usb-device', listener: DeviceSelect): void;
}

export interface WebContentsLike {
  on(
    event: 'will-navigate' | 'will-redirect' | 'will-frame-navigate',
    listener: (event: Preventable & { url?: string }, url?: string) => void,
  ): void;
  on(event: 'will-attach-webview', listener: (event: Preventable) => void): void;
  on(
    event: 'select-bluetooth-device',
    listener: (event: Preventable, devices: unknown, callback: (id: string) => void) => void,
  ): void;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

export interface HardeningDeps {
  /** The app's origins (app://treasury-desk, plus the dev server in development). */
  allowedOrigins: () => readonly string[];
  /** Opens a URL in the system browser (shell.openExternal). */
  openExternal: (url: string) => void;
  /** Refused navigations and windows, for the log. */
  onBlocked?: (what: string, url: string) => void;
}

/** Denies every permission, device and screen-capture request of a session. */
export function hardenSession(session: SessionLike, deps: Pick<HardeningDeps, 'onBlocked'> = {}): void {
  session.setPermissionRequestHandler((_wc, permission, callback) => {
    const granted = isPermissionAllowed(permission);
    if (!granted) deps.onBlocked?.('permission', permission);
    callback(granted);
  });
  session.setPermissionCheckHandler((_wc, permission) => isPermissionAllowed(permission));
  session.setDevicePermissionHandler(() => false);
  session.setDisplayMediaRequestHandler((_request, callback) => callback({}));
  const cancel: DeviceSelect = (event, _details, callback) => {
    event.preventDefault();
    callback('');
  };
  session.on('select-hid-device', cancel);
  session.on('select-serial-port', cancel);
  session.on('select-usb-device', cancel);
}

/** Applies the navigation and window rules to one web contents (every one the app creates). */
export function hardenWebContents(contents: WebContentsLike, deps: HardeningDeps): void {
  const stayInApp =
    (what: string) =>
    (event: Preventable & { url?: string }, url?: string): void => {
      const target = url ?? event.url ?? '';
      if (!isInAppNavigation(target, deps.allowedOrigins())) {
        event.preventDefault();
        deps.onBlocked?.(what, target);
      }
    };
  contents.on('will-navigate', stayInApp('navigation'));
  contents.on('will-redirect', stayInApp('redirect'));
  contents.on('will-frame-navigate', stayInApp('frame navigation'));
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    deps.onBlocked?.('webview', '');
  });
  contents.on('select-bluetooth-device', (event, _devices, callback) => {
    event.preventDefault();
    callback('');
  });
  contents.setWindowOpenHandler(({ url }) => {
    if (isAllowedExternalUrl(url)) deps.openExternal(url);
    else deps.onBlocked?.('new window', url);
    return { action: 'deny' };
  });
}

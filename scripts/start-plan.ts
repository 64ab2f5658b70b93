/**
 * What `npm start` (scripts/start.ts) does on this machine, as a pure function of what it found:
 * run the app in Electron, first install Electron's binary with Electron's own installer, or show
 * the same app in browser mode with one line saying why and what would fix it.
 */
import semver from 'semver';

export interface StartInputs {
  /** This Node's version (process.versions.node). */
  nodeVersion: string;
  /** Electron's version and the Node its tooling declares (node_modules/electron/package.json). */
  electronVersion: string;
  electronToolingNode: string;
  /** The Electron executable found (ELECTRON_OVERRIDE_DIST_PATH, ELECTRON_EXEC_PATH or the installed dist), or null. */
  electronBinary: string | null;
  /** Whether a window can be shown (DISPLAY/WAYLAND_DISPLAY on Linux; always on macOS and Windows). */
  display: boolean;
  /** The outcome of the install attempt, if one was made. */
  install: { ok: true } | { ok: false; reason: string } | null;
}

export type StartPlan =
  { action: 'electron'; executable: string } | { action: 'install' } | { action: 'browser'; why: string };

export function planStart(i: StartInputs): StartPlan {
  if (!i.display) {
    return {
      action: 'browser',
      why: 'No display (DISPLAY and WAYLAND_DISPLAY are unset), so Electron cannot open a window: showing the app in browser mode. Fix: run npm start in a desktop session or under xvfb-run.',
    };
  }
  if (i.electronBinary) return { action: 'electron', executable: i.electronBinary };
  const nodeOk = semver.satisfies(i.nodeVersion, i.electronToolingNode, { includePrerelease: true });
  if (!nodeOk) {
    return {
      action: 'browser',
      why: `The Electron ${i.electronVersion} binary is not installed and its installer needs Node ${i.electronToolingNode} (this is Node ${i.nodeVersion}): showing the app in browser mode. Fix: run npm start once with Node 22.12+ and a network, or set ELECTRON_OVERRIDE_DIST_PATH to an unpacked Electron ${i.electronVersion}.`,
    };
  }
  if (!i.install) return { action: 'install' };
  if (!i.install.ok) {
    return {
      action: 'browser',
      why: `Could not download the Electron ${i.electronVersion} binary (${i.install.reason}): showing the app in browser mode. Fix: run npm start again with a network, or set ELECTRON_OVERRIDE_DIST_PATH to an unpacked Electron ${i.electronVersion}.`,
    };
  }
  return {
    action: 'browser',
    why: `Electron's installer finished but no Electron ${i.electronVersion} binary was found: showing the app in browser mode. Fix: delete node_modules/electron/dist and run npm start again, or set ELECTRON_OVERRIDE_DIST_PATH.`,
  };
}

/** The executable's path inside an Electron dist folder (as Electron's own install.js names it). */
export function electronExecutableName(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'Electron.app/Contents/MacOS/Electron';
  if (platform === 'win32') return 'electron.exe';
  return 'electron';
}

/** Whether a window can be shown on this platform with this environment. */
export function hasDisplay(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): boolean {
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env['DISPLAY'] || env['WAYLAND_DISPLAY']);
}

/**
 * Updates: the rules, with electron-updater behind the small `UpdaterPort` (the shell passes the
 * real autoUpdater; test/integration/desktop-updates.test.ts a real electron-updater on a loopback
 * generic feed). Checks at start and every 6 h, downloads in the background (electron-updater
 * verifies the artifact's sha512 from latest.yml and refuses a mismatch), then asks the analyst,
 * with the release notes, before restarting, and never while the busy guard is held (an answer
 * uploading or being sent, a money confirmation in flight).
 */
import { cleanName } from '../../shared/names';
import type { BusyGuard } from './busy';

export const updateCheckIntervalMs = 6 * 60 * 60 * 1000;

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The feed URL from the build's publish config: https only. Plain http to loopback is accepted
 * only when the caller says so (`allowLoopbackHttp`: the tests' local feed); the packaged app never
 * does, so an http feed is refused at run time as at build time.
 */
export function checkFeedUrl(
  raw: unknown,
  o: { allowLoopbackHttp?: boolean } = {},
): { ok: true; url: string } | { ok: false; reason: string } {
  if (typeof raw !== 'string' || raw.length === 0) return { ok: false, reason: 'no feed URL configured' };
  if (raw.length > 2048) return { ok: false, reason: 'feed URL too long' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'feed URL is not a URL' };
  }
  if (url.username || url.password) return { ok: false, reason: 'feed URL carries credentials' };
  if (url.search || url.hash) return { ok: false, reason: 'feed URL has a query or fragment' };
  if (url.protocol === 'https:') return { ok: true, url: url.href };
  if (o.allowLoopbackHttp && url.protocol === 'http:' && loopbackHosts.has(url.hostname))
    return { ok: true, url: url.href };
  return { ok: false, reason: 'feed URL must be https' };
}

export interface UpdateInfoLike {
  version: string;
  releaseNotes?: string | Array<{ version: string; note: string | null }> | null;
  releaseName?: string | null;
}

/** The part of electron-updater's AppUpdater the controller uses. */
export interface UpdaterPort {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  checkForUpdates(): Promise<{ updateInfo: UpdateInfoLike; isUpdateAvailable?: boolean } | null>;
  downloadUpdate(): Promise<string[]>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
}

export type UpdatePhase =
  'idle' | 'checking' | 'downloading' | 'waiting-for-idle' | 'asking' | 'deferred' | 'installing' | 'failed';

export interface UpdateController {
  /** One check (joins one in progress): check, download, wait for idle, ask, install. */
  check(): Promise<void>;
  /** Checks now and every `intervalMs`. */
  start(): void;
  dispose(): void;
  phase(): UpdatePhase;
  lastError(): string | null;
}

/**
 * Release notes as plain text (electron-updater gives a string, possibly HTML, or a list): scripts
 * and styles dropped with their content, tags removed, entities decoded, every line cleaned like a
 * name (no bidi, format or control characters), at most 4000 characters. The dialog shows text only.
 */
export function releaseNotesText(info: UpdateInfoLike): string {
  const notes = info.releaseNotes;
  const text =
    typeof notes === 'string'
      ? notes
      : Array.isArray(notes)
        ? notes.map((n) => `${n.version}: ${n.note ?? ''}`).join('\n')
        : '';
  const plain = text
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<br\s*\/?>|<\/(p|li|div|h[1-6])\s*>/gi, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (m, e: string) => decodeEntity(e) ?? m);
  return plain
    .split(/\r\n|\r|\n/)
    .map((line) => cleanName(line, 4000))
    .filter((line, i, all) => line !== '' || (i > 0 && all[i - 1] !== ''))
    .join('\n')
    .trim()
    .slice(0, 4000);
}

const namedEntities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntity(e: string): string | null {
  if (e[0] !== '#') return namedEntities[e.toLowerCase()] ?? null;
  const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : null;
}

export function createUpdateController(deps: {
  updater: UpdaterPort;
  busy: BusyGuard;
  /** Main's native dialog: resolves true when the analyst chose to restart now. */
  askToRestart(info: { version: string; notes: string }): Promise<boolean>;
  log: { info(m: string, d?: unknown): void; warn(m: string, d?: unknown): void };
  intervalMs?: number;
}): UpdateController {
  const { updater, busy, log } = deps;
  updater.autoDownload = false;
  // The analyst decides when to restart; nothing installs behind their back at quit.
  updater.autoInstallOnAppQuit = false;
  let phase: UpdatePhase = 'idle';
  let error: string | null = null;
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let disposed = false;
  let downloaded: UpdateInfoLike | null = null;

  const waitForIdle = async (): Promise<void> => {
    while (busy.isBusy()) {
      phase = 'waiting-for-idle';
      log.info('update: restart deferred while busy', { reasons: busy.reasons() });
      await busy.whenIdle();
    }
  };

  const offer = async (info: UpdateInfoLike): Promise<void> => {
    await waitForIdle();
    if (disposed) return;
    phase = 'asking';
    const yes = await deps.askToRestart({ version: info.version, notes: releaseNotesText(info) });
    if (!yes) {
      phase = 'deferred';
      return;
    }
    // Work that started while the dialog was open (an upload, a confirmation) finishes first; the
    // analyst already agreed, so the restart follows without asking again.
    await waitForIdle();
    if (disposed) return;
    phase = 'installing';
    updater.quitAndInstall(false, true);
  };

  const run = async (): Promise<void> => {
    try {
      if (downloaded) {
        await offer(downloaded);
        return;
      }
      phase = 'checking';
      const result = await updater.checkForUpdates();
      if (!result || result.isUpdateAvailable === false) {
        phase = 'idle';
        return;
      }
      phase = 'downloading';
      await updater.downloadUpdate();
      downloaded = result.updateInfo;
      log.info('update: downloaded and verified', { version: result.updateInfo.version });
      await offer(result.updateInfo);
    } catch (err) {
      phase = 'failed';
      error = err instanceof Error ? err.message : String(err);
      log.warn('update: failed', { error: err });
    }
  };

  const controller: UpdateController = {
    check() {
      running ??= run().finally(() => (running = null));
      return running;
    },
    start() {
      void controller.check();
      timer = setInterval(() => void controller.check(), deps.intervalMs ?? updateCheckIntervalMs);
      timer.unref?.();
    },
    dispose() {
      disposed = true;
      if (timer) clearInterval(timer);
      timer = null;
    },
    phase: () => phase,
    lastError: () => error,
  };
  return controller;
}

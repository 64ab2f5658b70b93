import { screen } from 'electron';
import type { BrowserWindow } from 'electron';
import type { StateFileOptions } from '../../infra/json-store';
import { restoreWindowState, saveWindowState } from './state';
import type { WindowBounds, WindowState } from './state';
import { loadWindowState } from './state';

/** Saved bounds, clamped to the displays connected now (primary first); `o` reports a damaged file. */
export async function restoredWindowState(
  dir: string,
  o: StateFileOptions = {},
): Promise<{ bounds: WindowBounds; maximized: boolean }> {
  const primary = screen.getPrimaryDisplay();
  const displays = [primary, ...screen.getAllDisplays().filter((d) => d.id !== primary.id)].map(
    (d) => d.workArea,
  );
  return restoreWindowState(await loadWindowState(dir, o), displays);
}

/** Remembers the window's normal bounds and maximized state (debounced, and on close). */
export function trackWindowState(win: BrowserWindow, dir: string, onError: (err: unknown) => void): void {
  let timer: NodeJS.Timeout | undefined;
  const capture = (): WindowState | null =>
    win.isDestroyed() || win.isMinimized() || win.isFullScreen()
      ? null
      : { bounds: win.getNormalBounds(), maximized: win.isMaximized() };
  const save = (): void => {
    clearTimeout(timer);
    const state = capture();
    if (state) saveWindowState(dir, state).catch(onError);
  };
  const later = (): void => {
    clearTimeout(timer);
    timer = setTimeout(save, 500);
  };
  for (const e of ['resize', 'move', 'maximize', 'unmaximize'] as const) win.on(e as 'resize', later);
  win.on('close', save);
}

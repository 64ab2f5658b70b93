/**
 * The main window's size, position and maximized state, remembered between runs in
 * `window-state.json` in the user data folder. Pure rules here (parse, clamp to the displays that
 * exist now, serialize); src/main/electron/window/track-state.ts reads the window and the screens.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { stateFile } from '../../infra/json-store';
import type { StateFileOptions } from '../../infra/json-store';

export interface WindowBounds {
  /** Absent: let the OS centre the window. */
  x?: number;
  y?: number;
  width: number;
  height: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  bounds: Rect;
  maximized: boolean;
}

export const windowStateFileName = 'window-state.json';
export const defaultWindowSize = { width: 1360, height: 880 } as const;
const minSize = { width: 960, height: 600 } as const;
/** How much of the title bar must be on a display for a saved position to be kept. */
const minVisible = { width: 120, height: 40 } as const;

const finite = z.number().int().min(-100_000).max(100_000);
const stateSchema = z.object({
  version: z.literal(1),
  bounds: z.object({
    x: finite,
    y: finite,
    width: finite.min(1),
    height: finite.min(1),
  }),
  maximized: z.boolean(),
});

const windowStateFormat = {
  label: 'The saved window size and position',
  consequence: 'The window opens at its default size.',
  version: 1,
  schema: stateSchema,
  indent: 2,
};

function intersection(a: Rect, b: Rect): Rect | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : null;
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(Math.max(v, lo), Math.max(lo, hi));

function fitSize(size: { width: number; height: number }, area: Rect): { width: number; height: number } {
  return {
    width: clamp(Math.round(size.width), Math.min(minSize.width, area.width), area.width),
    height: clamp(Math.round(size.height), Math.min(minSize.height, area.height), area.height),
  };
}

/**
 * Where the window opens: the saved bounds when their title bar is still on a display (moved
 * fully inside that display's work area and shrunk to fit it), otherwise the saved or default
 * size centred by the OS on the primary display. `displays` are work areas, primary first.
 */
export function restoreWindowState(
  saved: WindowState | null,
  displays: readonly Rect[],
): { bounds: WindowBounds; maximized: boolean } {
  const primary = displays[0];
  const wanted = saved?.bounds ?? { x: 0, y: 0, ...defaultWindowSize };
  const maximized = saved?.maximized ?? false;
  if (!primary) return { bounds: { width: wanted.width, height: wanted.height }, maximized };
  if (saved) {
    const titleBar: Rect = { ...saved.bounds, height: Math.min(saved.bounds.height, minVisible.height) };
    let best: Rect | null = null;
    let bestArea = 0;
    for (const d of displays) {
      const i = intersection(titleBar, d);
      if (i && i.width >= Math.min(minVisible.width, saved.bounds.width) && i.width * i.height > bestArea) {
        best = d;
        bestArea = i.width * i.height;
      }
    }
    if (best) {
      const size = fitSize(saved.bounds, best);
      return {
        bounds: {
          x: clamp(saved.bounds.x, best.x, best.x + best.width - size.width),
          y: clamp(saved.bounds.y, best.y, best.y + best.height - size.height),
          ...size,
        },
        maximized,
      };
    }
  }
  return { bounds: fitSize(wanted, primary), maximized };
}

/**
 * The saved state, or null when the file is missing or could not be read (then moved aside and,
 * with `report`, told to the analyst).
 */
export async function loadWindowState(dir: string, o: StateFileOptions = {}): Promise<WindowState | null> {
  const loaded = await stateFile(windowStateFormat, o).read(path.join(dir, windowStateFileName));
  return loaded ? { bounds: loaded.value.bounds, maximized: loaded.value.maximized } : null;
}

/** Writes the state durably (temp file, fsync, rename): a crash never leaves half a file. */
export async function saveWindowState(dir: string, state: WindowState): Promise<void> {
  await mkdir(dir, { recursive: true });
  await stateFile(windowStateFormat, {}).write(path.join(dir, windowStateFileName), {
    version: 1,
    bounds: state.bounds,
    maximized: state.maximized,
  });
}

import { useSyncExternalStore } from 'react';
import type { Density } from '../../lib/preferences';
import { readDensity, saveDensity } from '../../lib/preferences';

/** Row height of data tables per density, in px (tokens.css holds the matching --row-height). */
export const ROW_HEIGHTS: Record<Density, number> = { comfortable: 36, compact: 30 };

let current: Density | null = null;
const listeners = new Set<() => void>();

function get(): Density {
  current ??= readDensity();
  return current;
}

/** The analyst's table density, shared by every table, persisted in this window's storage. */
export function useDensity(): [Density, (d: Density) => void] {
  const d = useSyncExternalStore((fn) => {
    listeners.add(fn);
    return () => listeners.delete(fn);
  }, get);
  return [d, setDensity];
}

export function setDensity(d: Density): void {
  current = d;
  saveDensity(d);
  for (const l of listeners) l();
}

/**
 * Display preferences kept in this window's localStorage (not customer data): table density and
 * an optional forced colour scheme. They are applied as data attributes on <html>, which the
 * static tokens read (src/renderer/src/styles/tokens.css).
 */
export type Density = 'compact' | 'comfortable';
export type Theme = 'system' | 'light' | 'dark';

const DENSITY_KEY = 'treasury-desk.density';
const THEME_KEY = 'treasury-desk.theme';

function read(key: string): string | null {
  try {
    return globalThis.localStorage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function write(key: string, value: string): void {
  try {
    globalThis.localStorage?.setItem(key, value);
  } catch {
    // Storage unavailable: the choice lasts for this window only.
  }
}

export function readDensity(): Density {
  return read(DENSITY_KEY) === 'compact' ? 'compact' : 'comfortable';
}

export function readTheme(): Theme {
  const t = read(THEME_KEY);
  return t === 'light' || t === 'dark' ? t : 'system';
}

export function applyDensity(d: Density): void {
  document.documentElement.dataset['density'] = d;
}

export function applyTheme(t: Theme): void {
  if (t === 'system') delete document.documentElement.dataset['theme'];
  else document.documentElement.dataset['theme'] = t;
}

export function saveDensity(d: Density): void {
  write(DENSITY_KEY, d);
  applyDensity(d);
}

export function saveTheme(t: Theme): void {
  write(THEME_KEY, t);
  applyTheme(t);
}

export function applyStoredPreferences(): void {
  applyDensity(readDensity());
  applyTheme(readTheme());
}

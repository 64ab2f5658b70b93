/**
 * In-app routes live in the URL hash (#/rfis/rfi_123), so moving between screens never navigates
 * the document (the shell blocks document navigation) and the back key works.
 */

import { create } from 'zustand';

export interface RouteState {
  path: string;
  navigate(path: string): void;
}

function currentPath(): string {
  const hash = typeof location === 'undefined' ? '' : location.hash.replace(/^#/, '');
  return hash.startsWith('/') ? hash : '/';
}

export const useRouter = create<RouteState>((set) => ({
  path: currentPath(),
  navigate(path) {
    if (typeof location !== 'undefined' && location.hash !== `#${path}`) location.hash = path;
    set({ path });
  },
}));

if (typeof window !== 'undefined') {
  window.addEventListener('hashchange', () => useRouter.setState({ path: currentPath() }));
}

/** Splits '/rfis/abc' into ['rfis', 'abc']. */
export function segments(path: string): string[] {
  return path.split('/').filter(Boolean).map(decodeURIComponent);
}

/**
 * In-app routes live in the URL hash (#/rfis/rfi_123), so moving between screens never navigates
 * the document (the shell blocks document navigation) and the back key works.
 */

import { create } from 'zustand';

export interface RouteState {
  path: string;
  /** Goes to `path`; `replace` swaps the current history entry (a selection moving in a list). */
  navigate(path: string, opts?: { replace?: boolean }): void;
}

function currentPath(): string {
  const hash = typeof location === 'undefined' ? '' : location.hash.replace(/^#/, '');
  return hash.startsWith('/') ? hash : '/';
}

export const useRouter = create<RouteState>((set) => ({
  path: currentPath(),
  navigate(path, opts) {
    if (typeof location !== 'undefined' && location.hash !== `#${path}`) {
      if (opts?.replace) location.replace(`#${path}`);
      else location.hash = path;
    }
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

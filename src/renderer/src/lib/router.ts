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

/**
 * Splits '/rfis/abc' into ['rfis', 'abc']; a query ('/rfis?band=at_risk') is not a segment (see
 * `routeQuery`).
 */
export function segments(path: string): string[] {
  const [bare = ''] = path.split('?');
  return bare.split('/').filter(Boolean).map(decodeURIComponent);
}

/**
 * The query of a route, e.g. '#/rfis?band=at_risk&status=action_required' → band, status. Screens
 * that accept filters from a link (the overview's charts, the command palette) read them here.
 */
export function routeQuery(path: string): URLSearchParams {
  const i = path.indexOf('?');
  return new URLSearchParams(i < 0 ? '' : path.slice(i + 1));
}

/** A route with a query: `withQuery('/rfis', {band: 'at_risk'})` → '/rfis?band=at_risk'. */
export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/**
 * The route of one RFI: `/rfis/<id>?profile=<profile id>`. RFI ids are one bank's only, so a link
 * that knows the RFI's owning profile names it; one that does not (a typed id, a link from outside)
 * leaves it out and the RFI screen asks whose it is.
 */
export function rfiPath(rfi: { id: string; profileId?: string | null | undefined }): string {
  return withQuery(`/rfis/${encodeURIComponent(rfi.id)}`, { profile: rfi.profileId ?? undefined });
}

/** The current route's query, re-read when the route changes. */
export function useRouteQuery(): URLSearchParams {
  const path = useRouter((s) => s.path);
  return routeQuery(path);
}

function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.tagName !== 'string') return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA'].includes(el.tagName);
}

/**
 * Back and forward through the hash history: Alt+Left / Alt+Right and the mouse's back/forward
 * buttons (4 and 5). Listened for in the capture phase so a list or grid handling arrows does
 * not swallow them; on macOS a text field keeps Alt+arrow for moving by word. Returns the
 * uninstall.
 */
export function installHistoryKeys(isMac: boolean): () => void {
  const onKey = (e: KeyboardEvent): void => {
    if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    if (isMac && typingIn(e.target)) return;
    e.preventDefault();
    if (e.key === 'ArrowLeft') history.back();
    else history.forward();
  };
  // Chromium numbers the back/forward buttons 3 and 4 (the fourth and fifth button).
  const onMouse = (e: MouseEvent): void => {
    if (e.button !== 3 && e.button !== 4) return;
    e.preventDefault();
    if (e.type !== 'mouseup') return;
    if (e.button === 3) history.back();
    else history.forward();
  };
  window.addEventListener('keydown', onKey, true);
  window.addEventListener('mousedown', onMouse, true);
  window.addEventListener('mouseup', onMouse, true);
  return () => {
    window.removeEventListener('keydown', onKey, true);
    window.removeEventListener('mousedown', onMouse, true);
    window.removeEventListener('mouseup', onMouse, true);
  };
}

/**
 * The in-app hash path of each screen a treasury-desk:// link may open. Kept apart from the
 * channel schemas (src/shared/ipc/channels/desktop.ts) so that the renderer's first screen, which
 * follows links, does not load zod: the schemas are only needed by the screens that parse.
 */

/** A screen a link may open (the shape `linkRouteSchema` checks). */
export interface LinkRouteTarget {
  screen: 'rfi' | 'transaction' | 'exchange';
  id: string;
}

/** The in-app hash path of a link's screen. */
export function routePath(route: LinkRouteTarget): string {
  const id = encodeURIComponent(route.id);
  switch (route.screen) {
    case 'rfi':
      return `/rfis/${id}`;
    case 'transaction':
      return `/returns/${id}`;
    case 'exchange':
      return `/exchange/${id}`;
  }
}

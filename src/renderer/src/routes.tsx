import { Suspense, lazy } from 'react';
import type { ComponentType, ReactNode } from 'react';
import { OverviewScreen } from './features/overview/OverviewScreen';

/**
 * Every screen but the home screen is a chunk of its own, loaded on first use (same origin, so the
 * CSP's script-src 'self' allows it): the first paint needs only the shell and the overview.
 */
function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  const Lazy = lazy(async () => ({ default: await load() }));
  return function LazyScreen(props: P) {
    return (
      <Suspense
        fallback={
          <p role="status" className="screen-loading">
            Loading…
          </p>
        }
      >
        <Lazy {...props} />
      </Suspense>
    );
  };
}

const ConnectionScreen = lazyScreen(() =>
  import('./features/session/ConnectionScreen').then((m) => m.ConnectionScreen),
);
const ExchangeScreen = lazyScreen(() =>
  import('./features/crypto/ExchangeScreen').then((m) => m.ExchangeScreen),
);
const RfisScreen = lazyScreen(() => import('./features/rfis/RfisScreen').then((m) => m.RfisScreen));
const ReturnsScreen = lazyScreen(() =>
  import('./features/returns/ReturnsScreen').then((m) => m.ReturnsScreen),
);
const SettingsScreen = lazyScreen(() =>
  import('./features/settings/SettingsScreen').then((m) => m.SettingsScreen),
);
const LockerScreen = lazyScreen(() => import('./features/locker/LockerScreen').then((m) => m.LockerScreen));
const ActivityScreen = lazyScreen(() =>
  import('./features/activity/ActivityScreen').then((m) => m.ActivityScreen),
);

/**
 * The app's screens. A feature adds one entry; the navigation and the router are built from this
 * list. `path` is the first hash segment ('' for the home screen).
 */
export interface FeatureRoute {
  path: string;
  label: string;
  /** Shown in the navigation (false for screens reached only by link). */
  nav: boolean;
  render(params: string[]): ReactNode;
}

export const routes: FeatureRoute[] = [
  { path: 'overview', label: 'Overview', nav: true, render: () => <OverviewScreen /> },
  { path: 'connection', label: 'Connection', nav: true, render: () => <ConnectionScreen /> },
  { path: 'rfis', label: 'RFIs', nav: true, render: (params) => <RfisScreen params={params} /> },
  { path: 'exchange', label: 'Exchange', nav: true, render: (params) => <ExchangeScreen params={params} /> },
  { path: 'returns', label: 'Returns', nav: true, render: (params) => <ReturnsScreen params={params} /> },
  { path: 'locker', label: 'Evidence locker', nav: true, render: () => <LockerScreen /> },
  { path: 'activity', label: 'Activity', nav: true, render: () => <ActivityScreen /> },
  { path: 'settings', label: 'Settings', nav: true, render: () => <SettingsScreen /> },
];

/** The screen shown for '/'. */
export const homePath = 'overview';

import type { ReactNode } from 'react';
import { ConnectionScreen } from './features/session/ConnectionScreen';
import { OverviewScreen } from './features/overview/OverviewScreen';
import { ExchangeScreen } from './features/crypto/ExchangeScreen';
import { RfisScreen } from './features/rfis/RfisScreen';
import { ReturnsScreen } from './features/returns/ReturnsScreen';
import { SettingsScreen } from './features/settings/SettingsScreen';
import { ActivityScreen } from './features/activity/ActivityScreen';

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
  { path: 'exchange', label: 'Exchange', nav: true, render: (params) => <ExchangeScreen params={params} /> },
  { path: 'rfis', label: 'RFIs', nav: true, render: (params) => <RfisScreen params={params} /> },
  { path: 'returns', label: 'Returns', nav: true, render: (params) => <ReturnsScreen params={params} /> },
  { path: 'activity', label: 'Activity', nav: true, render: () => <ActivityScreen /> },
  { path: 'settings', label: 'Settings', nav: true, render: () => <SettingsScreen /> },
];

/** The screen shown for '/'. */
export const homePath = 'overview';

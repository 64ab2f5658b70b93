import { Suspense, lazy, useEffect } from 'react';
import { Search, WifiOff } from 'lucide-react';
import { homePath, routes } from './routes';
import { installHistoryKeys, segments, useRouter } from './lib/router';
import { useSubscription } from './lib/events';
import { toastSubscription } from './lib/toast-sources';
import { ConnectionStatus } from './features/session/ConnectionStatus';
import { TeamStatus } from './features/team/TeamStatus';
import { useStatusLine } from './features/session/status-line';
import { RfiAlerts } from './features/rfis/notifications';
import { ShortcutsHelp } from './components/ShortcutsHelp';
import { GoToKeys } from './components/GoToKeys';
import { LinkNavigator } from './features/desktop/LinkNavigator';
import { ToastRegion } from './components/ToastRegion';
import { installPaletteShortcut, usePalette } from './features/palette/store';
import './styles/shell.css';

// The palette (React Aria's Autocomplete and Menu) is loaded on first use, not with the shell.
const CommandPalette = lazy(() =>
  import('./features/palette/CommandPalette').then((m) => ({ default: m.CommandPalette })),
);

const isMac = typeof navigator !== 'undefined' && /Mac/i.test(navigator.platform);
const paletteScreens = routes.filter((r) => r.nav).map((r) => ({ path: r.path, label: r.label }));

/** This computer has no network: said once, above every screen. */
function OfflineBanner() {
  const line = useStatusLine();
  if (!line.machineOffline) return null;
  return (
    <div className="offline-banner" role="alert" data-testid="offline-banner">
      <WifiOff size={16} aria-hidden="true" />
      <span>
        This computer is offline. What you see is the copy saved here; answers wait in the outbox and are sent
        when the network is back. Quotes cannot be confirmed offline.
      </span>
    </div>
  );
}

export function App() {
  const path = useRouter((s) => s.path);
  const navigate = useRouter((s) => s.navigate);
  const [first = homePath, ...params] = segments(path);
  const route = routes.find((r) => r.path === first);
  useSubscription(toastSubscription);
  useEffect(() => installPaletteShortcut(), []);
  useEffect(() => installHistoryKeys(isMac), []);
  const paletteLoaded = usePalette((s) => s.loaded);

  return (
    <div className="app">
      <header className="app__header">
        <span className="app__title">Treasury Desk</span>
        {/* A plain button keeps React Aria out of the first chunk; styled as the design system's. */}
        <button
          type="button"
          className="ui-button ui-button--ghost ui-button--sm palette-trigger"
          onClick={() => usePalette.getState().setOpen(true)}
          aria-keyshortcuts={isMac ? 'Meta+K' : 'Control+K'}
        >
          <Search size={16} aria-hidden="true" />
          <span className="ui-button__label">
            <span className="palette-trigger__word">Search…</span> <kbd>{isMac ? '⌘K' : 'Ctrl+K'}</kbd>
          </span>
        </button>
        <ConnectionStatus />
        <TeamStatus />
        <RfiAlerts />
      </header>
      <nav className="app__nav" aria-label="Main">
        <ul>
          {routes
            .filter((r) => r.nav)
            .map((r) => (
              <li key={r.path}>
                <a
                  href={`#/${r.path}`}
                  aria-current={r.path === first ? 'page' : undefined}
                  onClick={(e) => {
                    e.preventDefault();
                    navigate(`/${r.path}`);
                  }}
                >
                  {r.label}
                </a>
              </li>
            ))}
        </ul>
      </nav>
      <main className="app__main" id="main">
        <OfflineBanner />
        {route ? (
          route.render(params)
        ) : (
          <section className="screen">
            <h1>Not found</h1>
            <p>There is no screen at {path}.</p>
          </section>
        )}
      </main>
      <ToastRegion />
      {paletteLoaded && (
        <Suspense fallback={null}>
          <CommandPalette screens={paletteScreens} />
        </Suspense>
      )}
      <ShortcutsHelp />
      <GoToKeys />
      <LinkNavigator />
    </div>
  );
}

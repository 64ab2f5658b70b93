import { homePath, routes } from './routes';
import { segments, useRouter } from './lib/router';
import { ConnectionStatus } from './features/session/ConnectionStatus';
import { RfiAlerts } from './features/rfis/notifications';
import { ShortcutsHelp } from './components/ShortcutsHelp';
import { LinkNavigator } from './features/desktop/LinkNavigator';

export function App() {
  const path = useRouter((s) => s.path);
  const navigate = useRouter((s) => s.navigate);
  const [first = homePath, ...params] = segments(path);
  const route = routes.find((r) => r.path === first);

  return (
    <div className="app">
      <header className="app__header">
        <span className="app__title">Treasury Desk</span>
        <ConnectionStatus />
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
        {route ? (
          route.render(params)
        ) : (
          <section className="screen">
            <h1>Not found</h1>
            <p>There is no screen at {path}.</p>
          </section>
        )}
      </main>
      <ShortcutsHelp />
      <LinkNavigator />
    </div>
  );
}

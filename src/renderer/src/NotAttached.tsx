/**
 * The page shown when the screens are opened without the app's core behind them: the address
 * `npm run start:browser` prints, opened in another browser, serves the renderer but has no
 * `window.desk` (the harness binds it only in the Chromium window it starts). Instead of a blank
 * page, it says what this is and how to run the app.
 */
export function NotAttached() {
  return (
    <main className="not-attached" data-testid="not-attached">
      <h1>Treasury Desk is not running in this window</h1>
      <p>
        This address serves Treasury Desk&rsquo;s screens, but the app&rsquo;s core &mdash; the bank
        connection, the keychain holding your token and your saved work &mdash; is attached only to the window
        the app opens itself. A browser tab opened on this address cannot reach it, by design: no page outside
        the app is given your token or your data.
      </p>
      <h2>To use the app</h2>
      <ul>
        <li>
          <code>npm start</code> runs the desktop app (Electron), or browser mode where Electron cannot run.
        </li>
        <li>
          <code>npm run start:browser</code> opens its own Chromium window with the core attached (under{' '}
          <code>xvfb-run</code> without a display). Use that window, not this tab.
        </li>
      </ul>
    </main>
  );
}

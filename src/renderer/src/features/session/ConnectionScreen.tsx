import { useSession } from './store';

/** Details of the connection: where the app talks to and as whom. */
export function ConnectionScreen() {
  const status = useSession((s) => s.status);
  return (
    <section aria-labelledby="connection-title" className="screen">
      <h1 id="connection-title">Connection</h1>
      {!status ? (
        <p>Checking the connection…</p>
      ) : (
        <dl className="facts" data-testid="connection-details">
          <dt>Environment</dt>
          <dd>{status.environment.name}</dd>
          <dt>Base URL</dt>
          <dd>
            <code>{status.environment.baseUrl}</code>
          </dd>
          <dt>State</dt>
          <dd>{status.connection}</dd>
          <dt>Credential</dt>
          <dd>{status.credential?.webhookName ?? '—'}</dd>
          <dt>Legal entity</dt>
          <dd>{status.credential?.legalEntityId ?? '—'}</dd>
          <dt>Role</dt>
          <dd>{status.credential?.role ?? '—'}</dd>
          <dt>Checked</dt>
          <dd>
            <time dateTime={status.checkedAt}>{new Date(status.checkedAt).toLocaleString()}</time>
          </dd>
        </dl>
      )}
    </section>
  );
}

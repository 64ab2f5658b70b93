import { useEffect } from 'react';
import { useSubscription } from '../../lib/events';
import { sessionSubscription, useSession } from './store';

const stateLabel: Record<string, string> = {
  connected: 'Connected',
  no_token: 'No token',
  unauthenticated: 'Token refused',
  offline: 'Offline',
  error: 'Connection problem',
};

/** The environment, legal entity and role the bank reports for our credential. */
export function ConnectionStatus() {
  const status = useSession((s) => s.status);
  const error = useSession((s) => s.error);
  const loading = useSession((s) => s.loading);
  const refresh = useSession((s) => s.refresh);
  useSubscription(sessionSubscription);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  if (!status) {
    return (
      <div className="connection" role="status" aria-live="polite" data-testid="connection">
        {error ? <span className="connection__problem">{error}</span> : <span>Connecting…</span>}
      </div>
    );
  }
  const connected = status.connection === 'connected';
  return (
    <div
      className="connection"
      role="status"
      aria-live="polite"
      data-testid="connection"
      data-state={status.connection}
    >
      <span className={`dot dot--${connected ? 'ok' : 'bad'}`} aria-hidden="true" />
      <span className="connection__state" data-testid="connection-state">
        {stateLabel[status.connection] ?? status.connection}
      </span>
      <span
        className="connection__env"
        data-testid="connection-environment"
        title={status.environment.baseUrl}
      >
        {status.environment.name}
      </span>
      {status.credential && (
        <>
          <span data-testid="connection-legal-entity">
            <span className="muted">Legal entity </span>
            {status.credential.legalEntityId}
          </span>
          <span data-testid="connection-role" className={`role role--${status.credential.role}`}>
            {status.credential.role}
          </span>
        </>
      )}
      {status.problem && <span className="connection__problem">{status.problem}</span>}
      <button type="button" className="link" onClick={() => void refresh()} disabled={loading}>
        Re-check
      </button>
    </div>
  );
}

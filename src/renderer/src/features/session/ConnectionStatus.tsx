import { useEffect } from 'react';
import { RefreshCw } from 'lucide-react';
import { roleShortWords, roleWords } from '../../../../shared/words';
import { IconButton } from '../../components/ui';
import { useSession } from './store';
import { useStatusLine } from './status-line';
import { entityLabel } from '../../lib/entity';

/**
 * The header's status line: the connection in words (connected / bank unreachable since hh:mm:ss,
 * retrying in n s / signed out / keychain unavailable), the legal entity by name (id secondary),
 * the role and the environment. One source: the session main pushes (features/session/status-line.ts).
 */
export function ConnectionStatus() {
  const status = useSession((s) => s.status);
  const error = useSession((s) => s.error);
  const loading = useSession((s) => s.loading);
  const refresh = useSession((s) => s.refresh);
  const line = useStatusLine();

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const credential = status?.credential ?? null;
  const entity = credential
    ? // The bank's name for the entity; a bank that names none: the profile's own name.
      entityLabel({
        name: credential.legalEntityName ?? status?.environment.name,
        id: credential.legalEntityId,
      })
    : undefined;
  return (
    <div className="status-line" data-testid="connection" data-state={status?.connection ?? 'unknown'}>
      <div
        role="status"
        aria-live="polite"
        aria-label="Connection"
        className={`status-line__state tone--${line.tone}`}
      >
        <span className="status-line__dot" aria-hidden="true" />
        <span className="status-line__label" data-testid="connection-state">
          {!status && error ? error : line.label}
        </span>
        {line.sinceText || line.retryText ? (
          // An outage: since when (gives way on a narrow window; the title keeps the time) and
          // the retry countdown in a box of its own width, so the header never moves as it counts.
          <span
            className="status-line__detail status-line__detail--outage"
            data-testid="connection-detail"
            title={line.detail ?? undefined}
          >
            {line.sinceText && <span className="status-line__since">{line.sinceText}</span>}
            {line.sinceText && line.retryText && <span className="status-line__sep"> · </span>}
            {line.retryText && <span className="status-line__retry">{line.retryText}</span>}
          </span>
        ) : (
          line.detail && (
            <span
              className="status-line__detail"
              data-testid="connection-detail"
              title={line.since ?? undefined}
            >
              {line.detail}
            </span>
          )
        )}
      </div>
      {line.keychainProblem && (
        <span
          className="status-line__keychain tone--warn"
          title={line.keychainProblem}
          data-testid="connection-keychain"
        >
          Keychain unavailable
        </span>
      )}
      {credential && (
        <span className="status-line__entity" data-testid="connection-legal-entity">
          <span className="status-line__entity-name" title={entity}>
            {entity}
          </span>
          <code className="status-line__id" title={`Legal entity id ${credential.legalEntityId}`}>
            {credential.legalEntityId}
          </code>
        </span>
      )}
      {credential && (
        <span
          data-testid="connection-role"
          className={`role role--${credential.role}`}
          title={`Role: ${roleWords(credential.role)}`}
        >
          {roleShortWords(credential.role)}
        </span>
      )}
      {status && (
        <span
          className="status-line__env"
          data-testid="connection-environment"
          title={status.environment.baseUrl}
        >
          {status.environment.name}
        </span>
      )}
      <IconButton
        label="Check the connection now"
        icon={<RefreshCw size={14} aria-hidden="true" />}
        onPress={() => void refresh()}
        isDisabled={loading}
        className="status-line__recheck"
        data-testid="connection-recheck"
      />
    </div>
  );
}

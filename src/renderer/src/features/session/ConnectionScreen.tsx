import { roleWords } from '../../../../shared/words';
import { Button, CopyableId, RelativeTime, Skeleton } from '../../components/ui';
import { clockTime } from '../../lib/status-line';
import { useSession } from './store';
import { useStatusLine } from './status-line';
import { entityLabel } from '../../lib/entity';

/** Details of the connection: where the app talks to and as whom, in the status line's words. */
export function ConnectionScreen() {
  const status = useSession((s) => s.status);
  const refresh = useSession((s) => s.refresh);
  const loading = useSession((s) => s.loading);
  const line = useStatusLine();
  return (
    <section aria-labelledby="connection-title" className="screen">
      <h1 id="connection-title">Connection</h1>
      {!status ? (
        <Skeleton label="Checking the connection" lines={5} />
      ) : (
        <>
          <dl className="facts" data-testid="connection-details">
            <dt>State</dt>
            <dd className={`tone--${line.tone}`}>
              {line.label}
              {line.detail ? ` — ${line.detail}` : ''}
            </dd>
            {status.problem && (
              <>
                <dt>Why</dt>
                <dd>{status.problem}</dd>
              </>
            )}
            <dt>Environment</dt>
            <dd>{status.environment.name}</dd>
            <dt>Base URL</dt>
            <dd>
              <code>{status.environment.baseUrl}</code>
            </dd>
            <dt>Legal entity</dt>
            <dd>
              {status.credential ? (
                <>
                  {entityLabel({ name: status.credential.legalEntityName })}{' '}
                  <CopyableId id={status.credential.legalEntityId} kind="legal entity id" />
                </>
              ) : (
                '—'
              )}
            </dd>
            <dt>Credential</dt>
            <dd>{status.credential?.webhookName ?? '—'}</dd>
            <dt>Role</dt>
            <dd>{status.credential ? roleWords(status.credential.role) : '—'}</dd>
            {line.keychainProblem && (
              <>
                <dt>Keychain</dt>
                <dd className="tone--warn">{line.keychainProblem}</dd>
              </>
            )}
            <dt>Checked</dt>
            <dd>
              <RelativeTime value={status.checkedAt} /> ({clockTime(status.checkedAt)})
            </dd>
          </dl>
          <Button onPress={() => void refresh()} isPending={loading}>
            Check now
          </Button>
        </>
      )}
    </section>
  );
}

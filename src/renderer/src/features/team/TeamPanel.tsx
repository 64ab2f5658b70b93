import { useState } from 'react';
import { Button, TextField } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import { useSubscription } from '../../lib/events';
import { teamSubscription, useTeam } from './store';
import { teamStatusWords, whoWords } from './words';
import { ApprovalRulesPanel } from '../approvals/ApprovalRulesPanel';

/**
 * Settings → Team: the team server's address (main asks for approval in its own dialog), sign-in
 * in the system browser, sign-out. Empty in solo use, which stays as it was.
 */
export function TeamPanel() {
  useSubscription(teamSubscription);
  const status = useTeam((s) => s.status);
  const [address, setAddress] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const run = async (what: () => Promise<unknown>): Promise<void> => {
    setBusy(true);
    setProblem(null);
    try {
      await what();
      await useTeam.getState().load();
    } catch (err) {
      setProblem(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  if (!status) return <p role="status">Loading…</p>;
  const value = address ?? status.serverUrl ?? '';
  return (
    <div className="team-panel">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(() => call('team.setServer', { url: value.trim() === '' ? null : value.trim() }));
        }}
      >
        <TextField
          label="Team server address"
          description="Given by your administrator (https). Leave empty to work alone."
          value={value}
          onChange={setAddress}
          mono
        />
        <Button type="submit" isDisabled={busy || value === (status.serverUrl ?? '')}>
          Save address
        </Button>
      </form>
      {status.serverUrl && (
        <div className="team-panel__who">
          <p role="status">
            {status.analyst ? whoWords(status.analyst) : 'Not signed in to the team.'}{' '}
            {teamStatusWords(status)}
          </p>
          {status.analyst ? (
            <Button isDisabled={busy} onPress={() => void run(() => call('team.signOut', undefined))}>
              Sign out of the team
            </Button>
          ) : (
            <Button
              variant="primary"
              isPending={busy || status.connection === 'signing-in'}
              onPress={() => void run(() => call('team.signIn', undefined))}
            >
              Sign in to the team
            </Button>
          )}
        </div>
      )}
      {(problem ?? status.problem) && <p role="alert">{problem ?? status.problem}</p>}
      {status.analyst && <ApprovalRulesPanel />}
    </div>
  );
}

import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import type { SettingsView } from '../../../../shared/ipc/channels/settings';
import { useShallow } from 'zustand/react/shallow';
import { useSubscription } from '../../lib/events';
import { useSession } from '../session/store';
import { Button, Checkbox, Select, TextField } from '../../components/ui';
import { settingsPanels } from './panels';
import { settingsSubscription, useSettings } from './store';

type ProfileView = SettingsView['profiles'][number];

const credentialLabels: Record<string, string> = {
  'a-admin': 'Legal entity A — admin',
  'a-viewer': 'Legal entity A — viewer',
  'b-admin': 'Legal entity B — admin',
};

const notificationLabels: Record<keyof SettingsView['notifications'], string> = {
  newRfi: 'A new RFI arrives',
  rfiStatus: 'An RFI or question changes status',
  transactionStatus: 'A return or exchange order changes status',
  quoteExpiry: 'A quote is about to expire',
};

/** Keychain backend, or the clear warning that tokens live in memory until the keychain answers. */
function KeychainStatus({ vault }: { vault: SettingsView['vault'] }) {
  const atRest =
    vault.dataAtRest === 'encrypted' ? (
      <p className="settings__keychain" data-testid="data-at-rest" data-mode="encrypted">
        <span className="dot dot--ok" aria-hidden="true" /> Drafts, queued answers and the RFI cache are
        encrypted on disk with a key kept in the {vault.keychainName} keychain.
      </p>
    ) : vault.dataAtRest === 'waiting' ? (
      <div className="notice notice--warn" role="alert" data-testid="data-at-rest" data-mode="waiting">
        <strong>Waiting for the keychain.</strong> {vault.problem}
      </div>
    ) : (
      <div className="notice notice--warn" role="alert" data-testid="data-at-rest" data-mode="unencrypted">
        <strong>Data is not encrypted on disk.</strong>{' '}
        {vault.available && vault.problem
          ? vault.problem
          : 'Drafts, queued answers and the RFI cache are stored unencrypted on this computer, because no data key can be kept in a keychain. They are encrypted at the next save once the keychain is available.'}
      </div>
    );
  if (vault.available || vault.dataAtRest === 'waiting') {
    return (
      <>
        <p className="settings__keychain" data-testid="keychain-status" data-backend={vault.backend}>
          <span className="dot dot--ok" aria-hidden="true" /> Tokens are kept in the {vault.keychainName}{' '}
          keychain, never in the app’s files.
        </p>
        {atRest}
      </>
    );
  }
  // One alert: the keychain is missing, so the data key is too.
  return (
    <div
      className="notice notice--warn"
      role="alert"
      data-testid="keychain-status"
      data-backend={vault.backend}
    >
      <strong>No keychain available.</strong> {vault.problem}{' '}
      <span data-testid="data-at-rest" data-mode={vault.dataAtRest}>
        Drafts, queued answers and the RFI cache are stored unencrypted on this computer.
      </span>
    </div>
  );
}

/** The password field a token is typed into; sent to main once, then cleared. */
function TokenForm({ profile }: { profile: ProfileView }) {
  const [token, setToken] = useState('');
  const busy = useSettings((s) => s.busy);
  const save = useSettings((s) => s.setToken);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (token.trim() === '') return;
    const value = token;
    setToken('');
    await save(profile.id, value);
  };
  // The button is a real, enabled-looking action only when there is something to save; empty, it
  // is the secondary style and says why in its description, never a primary that does nothing.
  const empty = token.trim() === '';
  return (
    <form className="settings__token" onSubmit={(e) => void submit(e)}>
      <TextField
        label={profile.hasToken ? 'Replace token' : 'Access token'}
        type="password"
        autoComplete="off"
        value={token}
        onChange={setToken}
        description={empty ? 'Paste the token from your bank to save it.' : undefined}
        data-testid={`token-input-${profile.id}`}
      />
      <Button type="submit" variant={empty ? 'secondary' : 'primary'} isDisabled={empty || busy !== null}>
        Save token
      </Button>
    </form>
  );
}

function ProfileCard({ profile, active }: { profile: ProfileView; active: boolean }) {
  const busy = useSettings((s) => s.busy);
  const { activate, signOut, removeProfile } = useSettings.getState();
  const session = useSession((s) => s.status);
  const connection = active && session?.environment.id === profile.id ? session.connection : null;
  const kindWords = profile.kind === 'embedded-sandbox' ? 'Embedded sandbox' : 'Bank';
  const url = profile.kind === 'embedded-sandbox' ? profile.runningUrl : profile.baseUrl;
  const headingId = useId();

  let tokenState: string;
  if (!profile.hasToken) tokenState = 'Signed out — no token stored';
  else if (connection === 'unauthenticated') tokenState = 'Token refused by the bank — enter a new one';
  else tokenState = 'Token stored';

  return (
    <li
      className={`profile${active ? ' profile--active' : ''}`}
      aria-labelledby={headingId}
      data-testid={`profile-${profile.id}`}
    >
      <div className="profile__head">
        <h3 id={headingId}>{profile.name}</h3>
        {active && <span className="badge">Active</span>}
        {/* The kind of environment, unless its name already says it ("Embedded sandbox"). */}
        {kindWords !== profile.name && <span className="muted">{kindWords}</span>}
      </div>
      <p className="profile__url">
        <code>{url ?? 'not running'}</code>
      </p>
      <p
        className={`profile__token${connection === 'unauthenticated' || !profile.hasToken ? ' profile__token--bad' : ''}`}
        data-testid={`token-state-${profile.id}`}
      >
        {tokenState}
      </p>
      <TokenForm profile={profile} />
      <div className="profile__actions">
        {!active && (
          <Button onPress={() => void activate(profile.id)} isDisabled={busy !== null}>
            Use this environment
          </Button>
        )}
        {profile.hasToken && (
          <Button onPress={() => void signOut(profile.id)} isDisabled={busy !== null}>
            Sign out
          </Button>
        )}
        {profile.kind === 'remote' && (
          <Button
            variant="danger"
            onPress={() => void removeProfile(profile.id)}
            isDisabled={busy !== null}
            aria-label={`Remove ${profile.name}`}
          >
            Remove
          </Button>
        )}
      </div>
    </li>
  );
}

function AddProfileForm() {
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const add = useSettings((s) => s.addProfile);
  const busy = useSettings((s) => s.busy);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await add(name.trim(), baseUrl.trim())) {
      setName('');
      setBaseUrl('');
    }
  };
  return (
    <form className="settings__add" onSubmit={(e) => void submit(e)} aria-label="Add a bank environment">
      <TextField label="Name" value={name} onChange={setName} isRequired maxLength={80} />
      <TextField
        label="Base URL"
        value={baseUrl}
        onChange={setBaseUrl}
        isRequired
        placeholder="https://bank.example"
        inputMode="url"
      />
      <Button type="submit" isDisabled={busy !== null || !name.trim() || !baseUrl.trim()}>
        Add environment
      </Button>
      <p className="muted" data-testid="add-profile-hint">
        The app asks you to approve a new bank address in its own window; your token is then sent to that
        address only.
      </p>
    </form>
  );
}

function SandboxCredentialSwitch() {
  const sandbox = useSettings((s) => s.sandbox);
  const use = useSettings((s) => s.useSandboxCredential);
  const busy = useSettings((s) => s.busy);
  if (!sandbox?.available) return null;
  return (
    <div className="settings__row">
      <Select
        label="Sandbox credential"
        options={sandbox.options.map((o) => ({
          value: o.id,
          label: `${credentialLabels[o.id] ?? o.id} (${o.legalEntityName})`,
        }))}
        value={sandbox.current}
        isDisabled={busy !== null}
        onChange={(v) => void use(v as typeof sandbox.current)}
        data-testid="sandbox-credential"
      />
    </div>
  );
}

/** Keyed by the stored interval: a new stored value starts the field afresh. */
function PollingForm({ seconds }: { seconds: number }) {
  const [value, setValue] = useState(String(seconds));
  const save = useSettings((s) => s.setPolling);
  const busy = useSettings((s) => s.busy);
  return (
    <form
      className="settings__row"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save(Number.parseInt(value, 10));
      }}
    >
      <TextField
        label="Polling interval (seconds)"
        inputMode="numeric"
        value={value}
        onChange={setValue}
        description="From 5 to 3600 seconds."
      />
      <Button type="submit" isDisabled={busy !== null || value === String(seconds)}>
        Save
      </Button>
    </form>
  );
}

/** Environments and tokens, the keychain, polling, notifications, and panels of other features. */
export function SettingsScreen() {
  const { view, error, notice, busy } = useSettings(
    useShallow((s) => ({ view: s.view, error: s.error, notice: s.notice, busy: s.busy })),
  );
  const { load, setNotification, dismissProblem } = useSettings.getState();
  useSubscription(settingsSubscription);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section aria-labelledby="settings-title" className="screen settings">
      <h1 id="settings-title">Settings</h1>
      <div aria-live="polite" className="settings__messages">
        {error && (
          <p className="notice notice--bad" role="alert" data-testid="settings-error">
            {error}
          </p>
        )}
        {notice && (
          <p className="notice notice--ok" data-testid="settings-notice">
            {notice}
          </p>
        )}
      </div>
      {!view ? (
        <p>Loading settings…</p>
      ) : (
        <>
          {view.problems.map((p) => (
            <div key={p.id} className="notice notice--warn" role="alert" data-testid="local-problem">
              <span>{p.message}</span>{' '}
              <Button variant="ghost" onPress={() => void dismissProblem(p.id)}>
                Dismiss
              </Button>
            </div>
          ))}

          <section aria-labelledby="settings-env" className="panel">
            <h2 id="settings-env">Environments and tokens</h2>
            <KeychainStatus vault={view.vault} />
            <ul className="profiles">
              {view.profiles.map((p) => (
                <ProfileCard key={p.id} profile={p} active={p.id === view.activeProfileId} />
              ))}
            </ul>
            <SandboxCredentialSwitch />
            <AddProfileForm />
          </section>

          <section aria-labelledby="settings-polling" className="panel">
            <h2 id="settings-polling">Polling</h2>
            <PollingForm key={view.pollingIntervalSeconds} seconds={view.pollingIntervalSeconds} />
          </section>

          <section aria-labelledby="settings-notifications" className="panel">
            <h2 id="settings-notifications">Notifications</h2>
            <fieldset className="settings__checks" disabled={busy !== null}>
              <legend>Notify me when</legend>
              {(Object.keys(notificationLabels) as Array<keyof typeof notificationLabels>).map((key) => (
                <Checkbox
                  key={key}
                  isSelected={view.notifications[key]}
                  isDisabled={busy !== null}
                  onChange={(v) => void setNotification(key, v)}
                >
                  {notificationLabels[key]}
                </Checkbox>
              ))}
            </fieldset>
          </section>

          {settingsPanels.map((panel) => (
            <section key={panel.id} aria-labelledby={`settings-panel-${panel.id}`} className="panel">
              <h2 id={`settings-panel-${panel.id}`}>{panel.title}</h2>
              {panel.render()}
            </section>
          ))}
        </>
      )}
    </section>
  );
}

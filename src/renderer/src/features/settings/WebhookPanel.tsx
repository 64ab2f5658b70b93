import { useCallback, useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import type { ReceiverStatusView, WebhookConfigView } from '../../../../shared/ipc/channels/webhook';
import { call, errorMessage } from '../../lib/desk';
import { useDeskEvent } from '../../lib/events';
import { onSessionChange, useSession } from '../session/store';
import { dateWords, plural, roleWords, webhookEventWords } from '../../../../shared/words';
import { Button, TextField } from '../../components/ui';

/**
 * Settings → Webhook (issue 5 item 6): the bank's configuration of our credential
 * (GET /v1/webhook/url), the pinned key's fingerprint, the local receiver's status, and setting the
 * URL where the role allows it (admin; a viewer sees why not).
 */
function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : dateWords(t);
}

function Receiver({ r }: { r: ReceiverStatusView }) {
  return (
    <dl className="webhook__list" data-testid="webhook-receiver">
      <dt>Receiver</dt>
      <dd data-testid="webhook-receiver-address">
        {r.listening && r.url ? (
          <>
            <span className="dot dot--ok" aria-hidden="true" /> Listening at <code>{r.url}</code>
          </>
        ) : (
          <>
            <span className="dot dot--bad" aria-hidden="true" /> Not listening (polling only)
          </>
        )}
      </dd>
      <dt>Pinned key (SHA-256)</dt>
      <dd data-testid="webhook-fingerprint">
        {r.pinnedKeyFingerprint ? (
          <code className="webhook__fingerprint">{r.pinnedKeyFingerprint}</code>
        ) : (
          'No key pinned for this environment: every event is refused.'
        )}
      </dd>
      <dt>Last event</dt>
      <dd data-testid="webhook-last-event">
        {r.lastEvent
          ? `${webhookEventWords(r.lastEvent.type)} for ${r.lastEvent.rfiId}, ${when(r.lastEvent.at)}`
          : 'None yet'}
      </dd>
      <dt>Events</dt>
      <dd data-testid="webhook-counters">
        {r.accepted} accepted, {plural(r.duplicates, 'duplicate')} ignored
      </dd>
      <dt>Refused requests</dt>
      <dd data-testid="webhook-failures">
        {r.verificationFailures}
        {r.lastFailure ? ` (last: ${r.lastFailure.reason}, ${when(r.lastFailure.at)})` : ''}
      </dd>
      {r.autoConfigure && r.autoConfigure.state !== 'not_applicable' && (
        <>
          <dt>Sandbox setup</dt>
          <dd data-testid="webhook-auto">
            {r.autoConfigure.state === 'done' ? 'Done' : 'Failed'}
            {r.autoConfigure.message ? `: ${r.autoConfigure.message}` : ''}
          </dd>
        </>
      )}
    </dl>
  );
}

export function WebhookPanel() {
  const [view, setView] = useState<WebhookConfigView | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [url, setUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const reasonId = useId();
  const credential = useSession((s) => s.status?.credential ?? null);

  const load = useCallback(
    () =>
      call('webhook.config', undefined).then(
        (v) => {
          setView(v);
          setLoadError(null);
          if (v.config) setUrl(v.config.webhook_url);
        },
        (err: unknown) => setLoadError(errorMessage(err)),
      ),
    [],
  );

  useEffect(() => {
    void load();
    return onSessionChange(() => void load());
  }, [load]);
  useDeskEvent('webhook.receiverChanged', (r) => setView((v) => (v ? { ...v, receiver: r } : v)));

  const run = async (
    args: { target: 'receiver' } | { target: 'clear' } | { target: 'url'; url: string },
    done: string,
  ) => {
    setBusy(true);
    setMessage(null);
    try {
      const v = await call('webhook.setUrl', args);
      setView(v);
      if (v.config) setUrl(v.config.webhook_url);
      setMessage({ ok: true, text: done });
    } catch (err) {
      setMessage({ ok: false, text: errorMessage(err) });
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (url.trim() === '') void run({ target: 'clear' }, 'Webhook URL cleared.');
    else void run({ target: 'url', url: url.trim() }, 'Webhook URL saved.');
  };

  if (loadError) {
    return (
      <p className="notice notice--bad" role="alert" data-testid="webhook-error">
        {loadError}
      </p>
    );
  }
  if (!view) return <p>Loading the webhook configuration…</p>;
  const c = view.config;
  const canSet = view.canSet;
  const entityName =
    credential && c && credential.legalEntityId === c.legal_entity_id ? credential.legalEntityName : null;

  return (
    <div className="webhook" data-testid="webhook-panel">
      {view.error && (
        <p className="notice notice--bad" role="alert" data-testid="webhook-error">
          {view.error}
        </p>
      )}
      {c && (
        <dl className="webhook__list" data-testid="webhook-config">
          <dt>Name</dt>
          <dd data-testid="webhook-name">{c.webhook_name}</dd>
          <dt>URL</dt>
          <dd data-testid="webhook-url">{c.webhook_url ? <code>{c.webhook_url}</code> : 'Not set'}</dd>
          <dt>Legal entity</dt>
          <dd data-testid="webhook-legal-entity">
            {/* The entity by name where the session knows it, its id secondary. */}
            {entityName && <>{entityName} </>}
            <code>{c.legal_entity_id}</code>
          </dd>
          <dt>Role</dt>
          <dd data-testid="webhook-role">{roleWords(c.role)}</dd>
          <dt>Created</dt>
          <dd>{when(c.created_at)}</dd>
          <dt>Updated</dt>
          <dd data-testid="webhook-updated">{when(c.updated_at)}</dd>
        </dl>
      )}
      <Receiver r={view.receiver} />

      <form className="webhook__form" onSubmit={submit} noValidate aria-label="Set the webhook URL">
        <TextField
          label="Webhook URL"
          type="url"
          inputMode="url"
          spellCheck="false"
          mono
          value={url}
          maxLength={2000}
          onChange={setUrl}
          isDisabled={!canSet || busy}
          aria-describedby={canSet ? undefined : reasonId}
          placeholder="https://desk.example/webhooks/rfi"
          description="Another address must use https (plain http only to this computer); the app asks you to confirm it in its own window before the bank is told."
        />
        <div className="webhook__actions">
          <Button type="submit" variant="primary" isDisabled={!canSet || busy}>
            Save URL
          </Button>
          <Button
            isDisabled={!canSet || busy || !view.receiver.url}
            onPress={() =>
              void run({ target: 'receiver' }, 'The bank now posts events to this app’s receiver.')
            }
          >
            Use this app’s receiver
          </Button>
          <Button
            isDisabled={!canSet || busy}
            onPress={() => void run({ target: 'clear' }, 'Webhook URL cleared.')}
          >
            Clear
          </Button>
        </div>
        {!canSet && (
          <p id={reasonId} className="notice notice--warn" data-testid="webhook-cannot-set">
            {view.cannotSetReason ?? 'This credential may not set the webhook URL.'}
          </p>
        )}
      </form>
      <div aria-live="polite">
        {message && (
          <p
            className={`notice ${message.ok ? 'notice--ok' : 'notice--bad'}`}
            role={message.ok ? undefined : 'alert'}
            data-testid="webhook-message"
          >
            {message.text}
          </p>
        )}
      </div>
    </div>
  );
}

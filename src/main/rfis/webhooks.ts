/**
 * Webhooks: the local receiver (events → a re-read of the RFI through the same change
 * detector as polling), the pinned key of the active environment, pointing the embedded
 * sandbox's credential at the receiver, and the bank's webhook configuration for Settings.
 */

import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import type { WebhookEvent } from '../../shared/api/webhooks';
import type { ReceiverStatusView, WebhookConfigView } from '../../shared/ipc/channels/webhook';
import { DeskFailure } from '../../shared/ipc/errors';
import type { BankClient } from '../bank/client';
import type { ServerClock } from '../bank/clock';
import type { EventHub } from '../infra/events';
import type { Logger } from '../infra/log';
import type { SessionManager } from '../session/session';
import type { SettingsStore } from '../session/settings';
import type { RfiService } from './service';
import { keyFingerprint, loadPublicKey } from './signature';
import { createWebhookReceiver } from './webhook-receiver';
import type { WebhookReceiver } from './webhook-receiver';

/** In the data folder: accepted event ids and their signature time, pruned past the tolerance. */
export const SEEN_EVENTS_FILE = 'webhook-seen-events.json';

export interface WebhookServiceOptions {
  port?: number;
  maxBodyBytes?: number;
  toleranceSeconds?: number;
  /** Embedded sandbox: PUT /v1/webhook/url to the receiver (default true). */
  autoConfigureSandbox?: boolean;
}

export interface WebhookServiceDeps {
  bank: BankClient;
  clock: ServerClock;
  session: SessionManager;
  settings: SettingsStore;
  events: EventHub;
  log: Logger;
  rfis: RfiService;
  /** The data folder: seen event ids are kept in `webhook-seen-events.json` there. */
  dataDir?: string;
  options?: WebhookServiceOptions;
  /** Told of every accepted event (the case file lists the events seen for an RFI). */
  onSeen?(seen: { rfiId: string; kind: 'webhook'; detail: string }): void;
}

export interface WebhookService {
  readonly receiver: WebhookReceiver;
  status(): ReceiverStatusView;
  config(): Promise<WebhookConfigView>;
  setUrl(args: { url?: string; useReceiver?: boolean }): Promise<WebhookConfigView>;
  /** Points the embedded sandbox credential at the receiver (no-op elsewhere). */
  autoConfigure(): Promise<void>;
  /** Resolves when every received event so far has been applied (tests). */
  idle(): Promise<void>;
  dispose(): Promise<void>;
}

export async function createWebhookService(deps: WebhookServiceDeps): Promise<WebhookService> {
  const { bank, clock, session, settings, events, log, rfis } = deps;
  let autoState: ReceiverStatusView['autoConfigure'] = null;

  // The pinned key, parsed once per PEM.
  let keyPem: string | null = null;
  let key: KeyObject | null = null;
  let keyProblem: string | null = null;
  const pinned = (): KeyObject | null => {
    const pem = settings.profile(session.profile.id).webhookPublicKeyPem;
    if (pem !== keyPem) {
      keyPem = pem;
      key = null;
      keyProblem = null;
      if (pem) {
        try {
          key = loadPublicKey(pem);
        } catch (err) {
          keyProblem = err instanceof Error ? err.message : String(err);
          log.warn('webhook: the pinned key cannot be used', { error: keyProblem });
        }
      }
    }
    return key;
  };

  // Events are thin: re-read each RFI once per burst (creation sends one event per question).
  const pending = new Set<string>();
  let chain: Promise<void> = Promise.resolve();
  const onEvent = (event: WebhookEvent): void => {
    const id = event.data.rfi_id;
    deps.onSeen?.({
      rfiId: id,
      kind: 'webhook',
      detail: `${event.type} ${event.id} (${event.data.question_id ? `question ${event.data.question_id} ` : ''}${event.data.status}, sent ${event.created_at})`,
    });
    if (pending.has(id)) return;
    pending.add(id);
    chain = chain.then(async () => {
      await rfis.ready();
      pending.delete(id);
      try {
        await rfis.refresh(id, 'webhook');
      } catch (err) {
        // Polling will catch up; the event itself was valid.
        log.warn('webhook: RFI re-read failed', { rfiId: id, error: err });
      }
    });
  };

  const status = (): ReceiverStatusView => {
    const k = pinned();
    return {
      listening: receiver.url !== null,
      url: receiver.url,
      startedAt: receiver.startedAt,
      pinnedKeyFingerprint: k ? keyFingerprint(k) : null,
      environmentId: session.environment.id,
      ...receiver.counters(),
      ...(keyProblem && !receiver.counters().lastFailure
        ? { lastFailure: { reason: keyProblem, at: new Date().toISOString() } }
        : {}),
      autoConfigure: autoState,
    };
  };
  const push = (): void => events.emit('webhook.receiverChanged', status());

  const receiver = createWebhookReceiver({
    ...(deps.options?.port !== undefined ? { port: deps.options.port } : {}),
    ...(deps.options?.maxBodyBytes !== undefined ? { maxBodyBytes: deps.options.maxBodyBytes } : {}),
    toleranceSeconds:
      deps.options?.toleranceSeconds ?? session.sandbox?.options.webhookTimestampToleranceSeconds ?? 300,
    publicKey: pinned,
    nowMs: () => clock.now(),
    onEvent,
    onStatus: push,
    log,
    ...(deps.dataDir ? { seenIdsFile: path.join(deps.dataDir, SEEN_EVENTS_FILE) } : {}),
  });
  try {
    await receiver.start();
  } catch (err) {
    log.error('webhook: receiver could not start; polling only', { error: err });
  }

  const autoConfigure = async (): Promise<void> => {
    if (deps.options?.autoConfigureSandbox === false) return;
    if (session.profile.kind !== 'embedded-sandbox' || !session.sandbox) {
      autoState = {
        state: 'not_applicable',
        message: 'Only the embedded sandbox is pointed at this app automatically.',
      };
      push();
      return;
    }
    if (!receiver.url) {
      autoState = { state: 'failed', message: 'The receiver is not listening.' };
      push();
      return;
    }
    try {
      if (!session.credential) await session.check();
      if (session.credential?.role === 'viewer') {
        autoState = {
          state: 'failed',
          message: 'The sandbox credential is a viewer: only an admin may set the webhook URL. Polling only.',
        };
      } else {
        const current = await bank.getWebhookConfig();
        if (current.webhook_url !== receiver.url) await bank.setWebhookUrl(receiver.url);
        autoState = { state: 'done', message: `Sandbox events go to ${receiver.url}.` };
      }
    } catch (err) {
      autoState = {
        state: 'failed',
        message: err instanceof DeskFailure ? err.message : 'The webhook URL could not be set (see the log).',
      };
      log.warn('webhook: sandbox webhook URL not set', { error: err });
    }
    push();
  };

  // Re-point whenever the credential (or environment) changes.
  let lastKey: string | null = null;
  const offEvents = events.attach((m) => {
    if (m.event !== 'session.changed') return;
    const st = session.lastStatus;
    const k = st?.credential ? `${st.environment.id}|${st.credential.webhookName}` : null;
    if (k && k !== lastKey) {
      lastKey = k;
      void autoConfigure();
    }
  });

  const config = async (): Promise<WebhookConfigView> => {
    try {
      const c = await bank.getWebhookConfig();
      const admin = c.role === 'admin';
      return {
        config: {
          webhook_name: c.webhook_name,
          webhook_url: c.webhook_url,
          legal_entity_id: c.legal_entity_id,
          role: c.role,
          created_at: c.created_at,
          updated_at: c.updated_at,
        },
        error: null,
        canSet: admin,
        cannotSetReason: admin
          ? null
          : `This credential's role is ${c.role}: only an admin credential may set the webhook URL.`,
        receiver: status(),
      };
    } catch (err) {
      const message =
        err instanceof DeskFailure && err.kind === 'not_found'
          ? 'This bank does not offer GET /v1/webhook/url (the spec has it in sandbox and development environments only).'
          : err instanceof DeskFailure
            ? err.message
            : 'The webhook configuration could not be read.';
      if (!(err instanceof DeskFailure)) log.error('webhook: config read failed', { error: err });
      return {
        config: null,
        error: message,
        canSet: false,
        cannotSetReason: 'The configuration could not be read from the bank.',
        receiver: status(),
      };
    }
  };

  return {
    receiver,
    status,
    config,
    async setUrl({ url, useReceiver }) {
      if ((url === undefined) === (useReceiver !== true)) {
        throw new DeskFailure({
          kind: 'invalid_argument',
          field: 'url',
          message: 'Give either a URL ("" clears it) or useReceiver: true.',
        });
      }
      const target = useReceiver ? receiver.url : url;
      if (target === null || target === undefined) {
        throw new DeskFailure({ kind: 'local', message: 'The local receiver is not listening.' });
      }
      await bank.setWebhookUrl(target);
      return config();
    },
    autoConfigure,
    idle: async () => {
      for (;;) {
        const c = chain;
        await c;
        if (c === chain) return;
      }
    },
    async dispose() {
      offEvents();
      await receiver.close();
      await chain.catch(() => undefined);
    },
  };
}

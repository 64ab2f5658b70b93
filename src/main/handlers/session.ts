import type { SessionStatus } from '../../shared/ipc/channels/session';
import { DeskFailure } from '../../shared/ipc/errors';
import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../services';

/** Asks the bank who we are (GET /v1/webhook/url) and reports it as the connection state. */
export async function checkSession(core: ServiceCore): Promise<SessionStatus> {
  const base = { environment: core.environment, checkedAt: new Date().toISOString() };
  try {
    const cfg = await core.bank.getWebhookConfig();
    return {
      ...base,
      connection: 'connected',
      credential: { webhookName: cfg.webhook_name, legalEntityId: cfg.legal_entity_id, role: cfg.role },
      problem: null,
    };
  } catch (err) {
    if (!(err instanceof DeskFailure)) throw err;
    const connection =
      err.kind === 'offline'
        ? 'offline'
        : err.kind === 'unauthenticated'
          ? (await core.hasToken())
            ? 'unauthenticated'
            : 'no_token'
          : 'error';
    return { ...base, connection, credential: null, problem: err.message };
  }
}

export function sessionHandlers(core: ServiceCore): Pick<Handlers, 'session.status'> {
  return {
    'session.status': async () => {
      const status = await checkSession(core);
      core.events.emit('session.changed', status);
      return status;
    },
  };
}

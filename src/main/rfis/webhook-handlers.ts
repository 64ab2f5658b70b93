import { AppFailure } from '../../shared/ipc/errors';
import { checkWebhookUrl } from '../session/destinations';
import { maskRouteUrl } from './route-mask';
import type { Handlers } from '../ipc/dispatcher';
import type { Operations } from '../bank/operations';
import type { DestinationGuard } from '../session/destinations';
import type { SessionManager } from '../session/session';
import type { WebhookService } from './webhooks';

export interface WebhookHandlerDeps {
  webhooks: WebhookService;
  operations: Pick<Operations, 'audited'>;
  destinations: Pick<DestinationGuard, 'confirmWebhookUrl'>;
  /** The default profile's session: Settings → Webhook configures its credential. */
  session: Pick<SessionManager, 'profile' | 'credential' | 'who'>;
}

type WebhookChannels = 'webhook.config' | 'webhook.setUrl' | 'webhook.receiverStatus';

/**
 * Settings → Webhook: the bank's configuration, setting it (admin), the local receiver. The page
 * chooses this app's receiver, clearing, or a URL (https, or http to loopback) that the analyst
 * then confirms in main's native dialog; nothing is sent to the bank before that.
 */
export function webhookHandlers(core: WebhookHandlerDeps): Pick<Handlers, WebhookChannels> {
  return {
    'webhook.config': () => core.webhooks.config(core.session.profile.id),
    'webhook.setUrl': async (args) => {
      // The profile whose credential is set: the default one as the call arrives, whatever is
      // made default while the analyst reads the dialog.
      const profileId = core.session.profile.id;
      const credential = core.session.credential;
      const who = core.session.who();
      const shown =
        args.target === 'receiver'
          ? maskRouteUrl(core.webhooks.receiver.url ?? 'local receiver')
          : args.target === 'clear'
            ? '(cleared)'
            : args.url;
      return core.operations.audited({ operation: 'webhook.set_url', target: shown, profileId }, async () => {
        if (args.target === 'receiver') return core.webhooks.setUrl({ useReceiver: true, profileId });
        if (args.target === 'clear') return core.webhooks.setUrl({ url: '', profileId });
        const url = checkWebhookUrl(args.url);
        if (credential?.role === 'viewer') {
          // No dialog for a change the bank refuses anyway.
          throw new AppFailure({
            kind: 'forbidden',
            message: 'This credential is a viewer: only an admin credential may set the webhook URL.',
          });
        }
        await core.destinations.confirmWebhookUrl(url, who);
        return core.webhooks.setUrl({ url, profileId });
      });
    },
    'webhook.receiverStatus': async () => core.webhooks.status(),
  };
}

import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../core';

type WebhookChannels = 'webhook.config' | 'webhook.setUrl' | 'webhook.receiverStatus';

/** Settings → Webhook: the bank's configuration, setting it (admin), the local receiver. */
export function webhookHandlers(core: ServiceCore): Pick<Handlers, WebhookChannels> {
  return {
    'webhook.config': () => core.webhooks.config(),
    'webhook.setUrl': (args) =>
      core.operations.audited(
        {
          operation: 'webhook.set_url',
          target: args.useReceiver
            ? (core.webhooks.receiver.url ?? 'local receiver')
            : args.url || '(cleared)',
        },
        () => core.webhooks.setUrl(args),
      ),
    'webhook.receiverStatus': async () => core.webhooks.status(),
  };
}

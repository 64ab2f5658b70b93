export { createRfiService, removeProfileCache } from './service';
export type { RfiService, RfiServiceOptions, ChangeSource } from './service';
export { createWebhookService } from './webhooks';
export type { WebhookService, WebhookServiceOptions } from './webhooks';

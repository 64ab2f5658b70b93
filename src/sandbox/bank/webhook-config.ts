/** Each credential's webhook URL configuration (spec 2.7). */
import { iso } from '../clock';
import type { Credential } from '../model';
import type { BankState } from './state';

export class WebhookConfig {
  constructor(private readonly s: BankState) {}

  webhookConfig(cred: Credential): Record<string, unknown> {
    return {
      webhook_name: cred.name,
      webhook_url: cred.webhookUrl,
      legal_entity_id: cred.legalEntityId,
      // Our extension (docs/api-decisions.md): the entity by name, as a bank's answers may carry it.
      legal_entity_name: this.s.legalEntityById.get(cred.legalEntityId)?.name ?? '',
      role: cred.role,
      created_at: iso(cred.createdAt),
      updated_at: iso(cred.updatedAt),
    };
  }

  setWebhookUrl(cred: Credential, url: string): Record<string, unknown> {
    cred.webhookUrl = url;
    cred.updatedAt = this.s.now();
    return this.webhookConfig(cred);
  }

  /** Distinct non-empty webhook URLs of the credentials of a legal entity. */
  webhookUrls(legalEntityId: string): string[] {
    const urls = new Set<string>();
    for (const c of this.s.credentials.values()) {
      if (c.legalEntityId === legalEntityId && c.webhookUrl !== '') urls.add(c.webhookUrl);
    }
    return [...urls];
  }
}

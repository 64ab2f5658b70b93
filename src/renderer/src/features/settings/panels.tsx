import type { ReactNode } from 'react';
import { WebhookPanel } from './WebhookPanel';
import { DesktopPanel } from './DesktopPanel';
import { RemindersPanel } from './RemindersPanel';
import { TeamPanel } from '../team/TeamPanel';

/**
 * Extra panels of the settings screen, contributed by other features. The RFI feature adds its
 * webhook configuration panel here (one entry: `{ id: 'webhook', title: 'Webhook', render }`);
 * panels are shown after the environments, in this order.
 */
export interface SettingsPanel {
  id: string;
  title: string;
  render(): ReactNode;
}

export const settingsPanels: SettingsPanel[] = [
  { id: 'reminders', title: 'Deadline reminders', render: () => <RemindersPanel /> },
  { id: 'webhook', title: 'Webhook', render: () => <WebhookPanel /> },
  { id: 'desktop', title: 'Desktop', render: () => <DesktopPanel /> },
  { id: 'team', title: 'Team', render: () => <TeamPanel /> },
];

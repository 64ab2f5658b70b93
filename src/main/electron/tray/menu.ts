/**
 * The tray menu as data (pure): how many RFIs await action, the most urgent deadlines by name,
 * then Open window, Sync now, Pause notifications for an hour (or Resume), Quit.
 * src/main/electron/tray/install.ts hands it to Electron's Tray and Menu.
 */
import { dateWords, plural, rfiTypeWords, type DateWordsOptions } from '../../../shared/words';
import type { MenuItemSpec } from '../menu/template';

export interface TrayRfi {
  type: string;
  description: string;
  /** ISO deadline. */
  deadline: string;
  band: 'on_track' | 'at_risk' | 'breached' | 'none';
}

export interface TrayModel {
  productName: string;
  /** Null until the RFI cache has answered (the menu says it is checking). */
  awaitingAction: number | null;
  /** Open RFIs with a deadline, most urgent first (the caller sorts; at most `maxUrgent` shown). */
  urgent: TrayRfi[];
  /** When the pause ends (ISO, bank time), null when notifications are on. */
  pausedUntil: string | null;
  /** Locale and zone of the one absolute date style (the runtime's when absent). */
  dates?: DateWordsOptions;
}

export interface TrayActions {
  openWindow(): void;
  syncNow(): void;
  pauseNotifications(): void;
  resumeNotifications(): void;
  quit(): void;
}

export const maxUrgent = 3;

/** An RFI's name for the tray: its type and the start of its description, never its id. */
export function trayRfiName(rfi: Pick<TrayRfi, 'type' | 'description'>): string {
  const text = rfi.description.replace(/\s+/g, ' ').trim();
  const short = text.length > 40 ? `${text.slice(0, 39)}…` : text;
  // The type in the app's words ("Nominal sub-account KYC"), never its code.
  const type = rfi.type ? rfiTypeWords(rfi.type) : 'RFI';
  return short ? `${type}: ${short}` : type;
}

const bandWord: Record<TrayRfi['band'], string> = {
  breached: 'overdue',
  at_risk: 'due soon',
  on_track: 'due',
  none: 'due',
};

export function trayTooltip(m: TrayModel): string {
  const n = m.awaitingAction;
  const awaiting =
    n === null
      ? 'checking RFIs'
      : n === 0
        ? 'no RFI awaits action'
        : `${plural(n, 'RFI')} ${n === 1 ? 'awaits' : 'await'} action`;
  return `${m.productName}: ${awaiting}${m.pausedUntil ? ' (notifications paused)' : ''}`;
}

export function buildTrayMenu(m: TrayModel, actions: TrayActions): MenuItemSpec[] {
  const n = m.awaitingAction;
  const items: MenuItemSpec[] = [
    {
      id: 'tray.awaiting',
      label: n === null ? 'Checking RFIs…' : `${plural(n, 'RFI')} awaiting action`,
      enabled: false,
    },
  ];
  for (const [i, rfi] of m.urgent.slice(0, maxUrgent).entries()) {
    items.push({
      id: `tray.urgent.${i}`,
      label: `${trayRfiName(rfi)} — ${bandWord[rfi.band]} ${dateWords(rfi.deadline, m.dates)}`,
      enabled: false,
    });
  }
  items.push(
    { type: 'separator' },
    { id: 'tray.open', label: 'Open Treasury Desk', click: actions.openWindow },
    { id: 'tray.sync', label: 'Sync now', click: actions.syncNow },
    m.pausedUntil
      ? {
          id: 'tray.resume',
          label: `Resume notifications (paused until ${dateWords(m.pausedUntil, m.dates)})`,
          click: actions.resumeNotifications,
        }
      : { id: 'tray.pause', label: 'Pause notifications for an hour', click: actions.pauseNotifications },
    { type: 'separator' },
    { id: 'tray.quit', label: 'Quit', click: actions.quit },
  );
  return items;
}

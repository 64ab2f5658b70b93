/**
 * The tray menu as data (pure): how many RFIs await action, the most urgent deadlines by name,
 * then Open window, Sync now, Pause notifications for an hour (or Resume), Quit.
 * src/main/electron/tray/install.ts hands it to Electron's Tray and Menu.
 */
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
}

export interface TrayActions {
  openWindow(): void;
  syncNow(): void;
  pauseNotifications(): void;
  resumeNotifications(): void;
  quit(): void;
}

export const maxUrgent = 3;

function humanize(type: string): string {
  const words = type.replace(/[_-]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : 'RFI';
}

/** An RFI's name for the tray: its type and the start of its description, never its id. */
export function trayRfiName(rfi: Pick<TrayRfi, 'type' | 'description'>): string {
  const text = rfi.description.replace(/\s+/g, ' ').trim();
  const short = text.length > 40 ? `${text.slice(0, 39)}…` : text;
  return short ? `${humanize(rfi.type)}: ${short}` : humanize(rfi.type);
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
    n === 0 ? 'no RFI awaits action' : n === 1 ? '1 RFI awaits action' : `${n} RFIs await action`;
  return `${m.productName}: ${awaiting}${m.pausedUntil ? ' (notifications paused)' : ''}`;
}

export function buildTrayMenu(m: TrayModel, actions: TrayActions): MenuItemSpec[] {
  const n = m.awaitingAction;
  const items: MenuItemSpec[] = [
    {
      id: 'tray.awaiting',
      label: n === null ? 'Checking RFIs…' : n === 1 ? '1 RFI awaiting action' : `${n} RFIs awaiting action`,
      enabled: false,
    },
  ];
  for (const [i, rfi] of m.urgent.slice(0, maxUrgent).entries()) {
    items.push({
      id: `tray.urgent.${i}`,
      label: `${trayRfiName(rfi)} — ${bandWord[rfi.band]} ${rfi.deadline.slice(0, 16).replace('T', ' ')} UTC`,
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
          label: `Resume notifications (paused until ${m.pausedUntil.slice(11, 16)} UTC)`,
          click: actions.resumeNotifications,
        }
      : { id: 'tray.pause', label: 'Pause notifications for an hour', click: actions.pauseNotifications },
    { type: 'separator' },
    { id: 'tray.quit', label: 'Quit', click: actions.quit },
  );
  return items;
}

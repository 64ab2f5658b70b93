/**
 * The app's keyboard shortcuts as data: the application menu (src/main/electron/menu/template.ts) takes
 * its accelerators from here and the help overlay (ShortcutsHelp.tsx) lists them, so what the
 * analyst reads is what the keys do. Accelerators use Electron's syntax.
 */
export type ShortcutGroup = 'General' | 'Go to' | 'RFI queue' | 'RFI' | 'Edit' | 'View' | 'Window';

export interface Shortcut {
  id: string;
  label: string;
  group: ShortcutGroup;
  /** Electron accelerator (CmdOrCtrl = ⌘ on macOS, Ctrl elsewhere). */
  accelerator: string;
  /** A different accelerator on macOS. */
  macAccelerator?: string;
  /** Other keys doing the same, shown in the overlay (e.g. `?` for help). */
  alternatives?: readonly string[];
  /** 'menu': a menu item of main; 'page': handled by the renderer (the menu only displays it). */
  handledBy: 'menu' | 'page';
  /** Keys pressed one after the other ("G then R"), for the page's go-to shortcuts. */
  sequence?: readonly string[];
  /** Where a go-to shortcut leads (a route path). */
  goTo?: string;
}

/** A go-to shortcut: G, then a letter. */
function goTo(path: string, letter: string, label: string): Shortcut {
  return {
    id: `go.${path}`,
    label,
    group: 'Go to',
    accelerator: `G ${letter}`,
    sequence: ['G', letter],
    goTo: path,
    handledBy: 'page',
  };
}

export const shortcuts: readonly Shortcut[] = [
  {
    id: 'help.shortcuts',
    label: 'Show keyboard shortcuts',
    group: 'General',
    accelerator: 'F1',
    alternatives: ['?'],
    handledBy: 'page',
  },
  {
    id: 'palette.open',
    label: 'Open the command palette (jump to an RFI, transfer or quote; run an action)',
    group: 'General',
    accelerator: 'CmdOrCtrl+K',
    handledBy: 'page',
  },
  {
    id: 'dialog.close',
    label: 'Close the dialog',
    group: 'General',
    accelerator: 'Escape',
    handledBy: 'page',
  },
  {
    id: 'history.back',
    label: 'Back (the previous screen)',
    group: 'General',
    accelerator: 'Alt+Left',
    alternatives: ['Mouse button 4'],
    handledBy: 'page',
  },
  {
    id: 'history.forward',
    label: 'Forward',
    group: 'General',
    accelerator: 'Alt+Right',
    alternatives: ['Mouse button 5'],
    handledBy: 'page',
  },
  goTo('overview', 'O', 'Overview'),
  goTo('rfis', 'R', 'RFI queue'),
  goTo('exchange', 'E', 'Exchange (quotes and orders)'),
  goTo('returns', 'T', 'Returns of incoming transfers'),
  goTo('locker', 'L', 'Evidence locker'),
  goTo('activity', 'A', 'Activity'),
  goTo('settings', 'S', 'Settings'),
  { id: 'queue.next', label: 'Next RFI', group: 'RFI queue', accelerator: 'J', handledBy: 'page' },
  { id: 'queue.previous', label: 'Previous RFI', group: 'RFI queue', accelerator: 'K', handledBy: 'page' },
  {
    id: 'queue.open',
    label: 'Open the selected RFI',
    group: 'RFI queue',
    accelerator: 'Enter',
    handledBy: 'page',
  },
  { id: 'queue.search', label: 'Search the queue', group: 'RFI queue', accelerator: '/', handledBy: 'page' },
  {
    id: 'rfi.answer',
    label: 'Answer: go to the first question awaiting an answer',
    group: 'RFI',
    accelerator: 'A',
    handledBy: 'page',
  },
  {
    id: 'app.quit',
    label: 'Quit Treasury Desk',
    group: 'General',
    accelerator: 'CmdOrCtrl+Q',
    handledBy: 'menu',
  },
  { id: 'edit.undo', label: 'Undo', group: 'Edit', accelerator: 'CmdOrCtrl+Z', handledBy: 'menu' },
  { id: 'edit.redo', label: 'Redo', group: 'Edit', accelerator: 'CmdOrCtrl+Shift+Z', handledBy: 'menu' },
  { id: 'edit.cut', label: 'Cut', group: 'Edit', accelerator: 'CmdOrCtrl+X', handledBy: 'menu' },
  { id: 'edit.copy', label: 'Copy', group: 'Edit', accelerator: 'CmdOrCtrl+C', handledBy: 'menu' },
  { id: 'edit.paste', label: 'Paste', group: 'Edit', accelerator: 'CmdOrCtrl+V', handledBy: 'menu' },
  { id: 'edit.selectAll', label: 'Select all', group: 'Edit', accelerator: 'CmdOrCtrl+A', handledBy: 'menu' },
  { id: 'view.zoomIn', label: 'Zoom in', group: 'View', accelerator: 'CmdOrCtrl+Plus', handledBy: 'menu' },
  { id: 'view.zoomOut', label: 'Zoom out', group: 'View', accelerator: 'CmdOrCtrl+-', handledBy: 'menu' },
  {
    id: 'view.resetZoom',
    label: 'Actual size',
    group: 'View',
    accelerator: 'CmdOrCtrl+0',
    handledBy: 'menu',
  },
  {
    id: 'view.fullScreen',
    label: 'Toggle full screen',
    group: 'View',
    accelerator: 'F11',
    macAccelerator: 'Ctrl+Cmd+F',
    handledBy: 'menu',
  },
  {
    id: 'window.minimize',
    label: 'Minimize',
    group: 'Window',
    accelerator: 'CmdOrCtrl+M',
    handledBy: 'menu',
  },
  {
    id: 'window.close',
    label: 'Close window',
    group: 'Window',
    accelerator: 'CmdOrCtrl+W',
    handledBy: 'menu',
  },
];

export const shortcutGroups: readonly ShortcutGroup[] = [
  'General',
  'Go to',
  'RFI queue',
  'RFI',
  'Edit',
  'View',
  'Window',
];

/**
 * The groups the help overlay (F1) lists: the app's own keys. Edit, View and Window are the
 * system's usual keys, shown beside their menu items, not repeated in the overlay.
 */
export const helpGroups: readonly ShortcutGroup[] = ['General', 'Go to', 'RFI queue', 'RFI'];

/** The go-to shortcuts as "second key → route path" (the first key is G). */
export const goToKeys: Readonly<Record<string, string>> = Object.fromEntries(
  shortcuts.filter((s) => s.goTo && s.sequence).map((s) => [s.sequence![1]!.toLowerCase(), s.goTo!]),
);

export function shortcutById(id: string): Shortcut {
  const s = shortcuts.find((x) => x.id === id);
  if (!s) throw new Error(`unknown shortcut ${id}`);
  return s;
}

export function acceleratorFor(shortcut: Shortcut, isMac: boolean): string {
  return isMac && shortcut.macAccelerator ? shortcut.macAccelerator : shortcut.accelerator;
}

const macKeys: Readonly<Record<string, string>> = {
  CmdOrCtrl: '⌘',
  CommandOrControl: '⌘',
  Cmd: '⌘',
  Command: '⌘',
  Ctrl: '⌃',
  Control: '⌃',
  Shift: '⇧',
  Alt: '⌥',
  Option: '⌥',
};
const otherKeys: Readonly<Record<string, string>> = {
  CmdOrCtrl: 'Ctrl',
  CommandOrControl: 'Ctrl',
  Control: 'Ctrl',
};
const commonKeys: Readonly<Record<string, string>> = { Plus: '+', Escape: 'Esc', Left: '←', Right: '→' };

/** The keys of an accelerator as the analyst presses them, e.g. ['Ctrl', 'Shift', 'Z'] or ['⌘', '⇧', 'Z']. */
export function acceleratorKeys(accelerator: string, isMac: boolean): string[] {
  const names = isMac ? macKeys : otherKeys;
  return accelerator
    .split(/\+(?!$)/)
    .filter((k) => k.length > 0)
    .map((k) => names[k] ?? commonKeys[k] ?? k);
}

import { create } from 'zustand';

/**
 * Whether the command palette is open (Ctrl/Cmd+K, or the header's search button), and whether it
 * was ever opened: the palette itself is a chunk of its own, loaded on first use.
 */
export const usePalette = create<{
  open: boolean;
  loaded: boolean;
  setOpen(open: boolean): void;
  toggle(): void;
}>((set) => ({
  open: false,
  loaded: false,
  setOpen: (open) => set((s) => ({ open, loaded: s.loaded || open })),
  toggle: () => set((s) => ({ open: !s.open, loaded: true })),
}));

/** Ctrl+K (Cmd+K on macOS) toggles the palette from anywhere; answers the uninstall. */
export function installPaletteShortcut(): () => void {
  const onKey = (e: KeyboardEvent): void => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') {
      e.preventDefault();
      usePalette.getState().toggle();
    }
  };
  window.addEventListener('keydown', onKey);
  return () => window.removeEventListener('keydown', onKey);
}

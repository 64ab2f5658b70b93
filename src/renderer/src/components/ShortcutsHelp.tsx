import { lazy, Suspense, useEffect, useState } from 'react';

const ShortcutsDialog = lazy(() => import('./ShortcutsDialog').then((m) => ({ default: m.ShortcutsDialog })));

function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

/**
 * The keyboard shortcuts, listed from src/shared/shortcuts.ts (the same list the application menu
 * takes its accelerators from). F1 or `?` opens it (Help → Keyboard shortcuts presses F1), Esc
 * closes it and focus returns where it was. The dialog is loaded the first time it opens.
 */
export function ShortcutsHelp() {
  const [open, setOpen] = useState(false);
  const [used, setUsed] = useState(false);

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'F1' || (e.key === '?' && !typingIn(e.target))) {
        e.preventDefault();
        setUsed(true);
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (!used) return null;
  return (
    <Suspense fallback={null}>
      <ShortcutsDialog isOpen={open} onOpenChange={setOpen} />
    </Suspense>
  );
}

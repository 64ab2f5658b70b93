import { useEffect, useRef, useState } from 'react';
import { acceleratorFor, acceleratorKeys, shortcutGroups, shortcuts } from '../../../shared/shortcuts';

const isMac = typeof navigator !== 'undefined' && /Mac/i.test(navigator.platform);

function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

/**
 * The keyboard shortcuts, listed from src/shared/shortcuts.ts (the same list the application menu
 * takes its accelerators from). F1 or `?` opens it (Help → Keyboard shortcuts presses F1), Esc
 * closes it and focus returns where it was.
 */
export function ShortcutsHelp() {
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDivElement>(null);
  const returnFocus = useRef<HTMLElement | null>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'F1' || (e.key === '?' && !typingIn(e.target))) {
        e.preventDefault();
        returnFocus.current = document.activeElement as HTMLElement | null;
        setOpen(true);
      } else if (e.key === 'Escape') {
        setOpen(false);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    if (open) dialog.current?.focus();
    else returnFocus.current?.focus?.();
  }, [open]);

  if (!open) return null;
  return (
    <div className="shortcuts-backdrop" onClick={() => setOpen(false)}>
      <div
        ref={dialog}
        className="shortcuts"
        role="dialog"
        aria-modal="true"
        aria-labelledby="shortcuts-title"
        tabIndex={-1}
        onClick={(e) => e.stopPropagation()}
        data-testid="shortcuts-help"
      >
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        {shortcutGroups.map((group) => (
          <section key={group} aria-label={group}>
            <h3>{group}</h3>
            <table>
              <tbody>
                {shortcuts
                  .filter((s) => s.group === group)
                  .map((s) => (
                    <tr key={s.id}>
                      <th scope="row">{s.label}</th>
                      <td>
                        {[acceleratorFor(s, isMac), ...(s.alternatives ?? [])].map((acc, i) => (
                          <span key={acc}>
                            {i > 0 && <span className="muted"> or </span>}
                            {acceleratorKeys(acc, isMac).map((k) => (
                              <kbd key={k}>{k}</kbd>
                            ))}
                          </span>
                        ))}
                      </td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </section>
        ))}
        <button type="button" onClick={() => setOpen(false)}>
          Close
        </button>
      </div>
    </div>
  );
}

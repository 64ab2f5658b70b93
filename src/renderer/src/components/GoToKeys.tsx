import { useEffect } from 'react';
import { goToKeys } from '../../../shared/shortcuts';
import { useRouter } from '../lib/router';

function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

/** How long after G the second key counts (as in Gmail and Linear). */
const SEQUENCE_MS = 1500;

/**
 * The go-to shortcuts (G, then a letter: G R the RFI queue, G O the overview…), from the shared
 * shortcut list the help overlay shows. Not while typing in a field or with a modifier held.
 */
export function GoToKeys() {
  const navigate = useRouter((s) => s.navigate);
  useEffect(() => {
    let armedAt = 0;
    const onKey = (e: KeyboardEvent): void => {
      if (e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target)) return;
      const key = e.key.toLowerCase();
      if (armedAt > 0 && e.timeStamp - armedAt <= SEQUENCE_MS) {
        armedAt = 0;
        const path = goToKeys[key];
        if (path) {
          e.preventDefault();
          e.stopImmediatePropagation();
          navigate(`/${path}`);
        }
        return;
      }
      armedAt = key === 'g' && !e.shiftKey ? e.timeStamp : 0;
    };
    // Capture: the second key must not also act on the screen (A would open the answer).
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [navigate]);
  return null;
}

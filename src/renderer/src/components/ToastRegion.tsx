import { useEffect, useRef } from 'react';
import { useToasts } from '../lib/toasts';
import { useRouter } from '../lib/router';

/**
 * Where toasts appear: one polite live region (role=status) that exists from the start, so screen
 * readers hear each new toast; each has a link to its object and a dismiss button. A toast belongs
 * to the screen it appeared on: when the analyst moves to another screen, the good news and notices
 * shown so far leave (they never sit over another object's screen as if they were its own), while
 * failures and warnings stay until dismissed.
 */
export function ToastRegion() {
  const toasts = useToasts((s) => s.toasts);
  const dismiss = useToasts((s) => s.dismiss);
  const navigate = useRouter((s) => s.navigate);
  const path = useRouter((s) => s.path);
  const shownOn = useRef(path);
  useEffect(() => {
    if (shownOn.current === path) return;
    shownOn.current = path;
    for (const t of useToasts.getState().toasts) if (t.tone === 'ok' || t.tone === 'info') dismiss(t.id);
  }, [path, dismiss]);
  return (
    <div className="toasts" role="status" aria-live="polite" aria-label="Notifications" data-testid="toasts">
      {toasts.map((t) => (
        <div key={t.id} className={`toast tone--${t.tone}`} data-testid="toast" data-tone={t.tone}>
          <div className="toast__text">
            <strong className="toast__title">{t.title}</strong>
            {t.body && <span className="toast__body">{t.body}</span>}
          </div>
          <div className="toast__actions">
            {t.link && (
              <a
                href={`#${t.link.to}`}
                onClick={(e) => {
                  e.preventDefault();
                  navigate(t.link!.to);
                  dismiss(t.id);
                }}
              >
                {t.link.label}
              </a>
            )}
            <button
              type="button"
              className="toast__close"
              aria-label={`Dismiss: ${t.title}`}
              onClick={() => dismiss(t.id)}
            >
              ×
            </button>
          </div>
        </div>
      ))}
    </div>
  );
}

import type { ReactNode } from 'react';
import { ArrowLeft } from 'lucide-react';
import { useRouter } from '../../lib/router';

/**
 * The one back link: an arrow and words ("Back to the queue"), above the screen's title, going
 * through the router (no full reload). Every screen that leads back uses it, so they all look
 * and behave alike.
 */
export function BackLink({ href, children }: { href: `#/${string}`; children: ReactNode }) {
  const navigate = useRouter((s) => s.navigate);
  return (
    <p className="back-link">
      <a
        href={href}
        data-testid="back-link"
        onClick={(e) => {
          if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
          e.preventDefault();
          navigate(href.slice(1));
        }}
      >
        <ArrowLeft size={16} aria-hidden="true" />
        {children}
      </a>
    </p>
  );
}

import { useEffect, useState } from 'react';
import type { RfiCountsView } from '../../../../shared/ipc/channels/rfis';
import { countWords } from '../../../../shared/words';
import { call } from '../../lib/desk';
import { useDeskEvent } from '../../lib/events';
import { rfiPath, useRouter } from '../../lib/router';

/**
 * App-wide RFI alerts: opens the RFI whose native notification was clicked (`rfis.openRequested`
 * → #/rfis/<id>?profile=<its profile>), and shows in the header the same numbers as the app badge — RFIs awaiting
 * action — and how many are unread, kept current by `rfis.changed`.
 */
export function useRfiNotificationNavigation(): void {
  const navigate = useRouter((s) => s.navigate);
  useDeskEvent('rfis.openRequested', ({ rfiId, profileId }) => {
    navigate(rfiId ? rfiPath({ id: rfiId, profileId }) : '/rfis');
  });
}

export function RfiAlerts() {
  useRfiNotificationNavigation();
  const navigate = useRouter((s) => s.navigate);
  const [counts, setCounts] = useState<RfiCountsView | null>(null);

  useEffect(() => {
    let alive = true;
    void call('rfis.counts', undefined)
      .then((r) => {
        if (alive) setCounts(r.counts);
      })
      .catch(() => undefined);
    return () => {
      alive = false;
    };
  }, []);
  useDeskEvent('rfis.changed', (c) => setCounts(c.counts));

  if (!counts) return null;
  // The link's text is its name ("RFIs 4 awaiting action 10 unread") at every width; a narrow
  // window draws the shorter "awaiting" (" action" is still read), never a bare number; the hover
  // title says the whole sentence.
  const name = `RFIs: ${countWords(counts.awaitingAction)} awaiting action${
    counts.unread > 0 ? `, ${countWords(counts.unread)} unread` : ''
  }`;
  return (
    <a
      href="#/rfis"
      className="rfi-alerts"
      data-testid="rfi-alerts"
      title={name}
      onClick={(e) => {
        e.preventDefault();
        navigate('/rfis');
      }}
    >
      <span className="rfi-alerts__label">RFIs</span>{' '}
      <span className="rfi-alerts__badge" data-testid="rfi-badge-count">
        {countWords(counts.awaitingAction)}
      </span>{' '}
      <span className="rfi-alerts__text">
        awaiting <span className="rfi-alerts__wide">action</span>
      </span>{' '}
      {counts.unread > 0 && (
        <span className="rfi-alerts__unread" data-testid="rfi-unread-count">
          {countWords(counts.unread)} unread
        </span>
      )}
    </a>
  );
}

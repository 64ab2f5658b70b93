import { useSyncExternalStore } from 'react';
import { Inbox } from 'lucide-react';
import { EmptyState } from '../../components/ui';
import { rfiPath, useRouteQuery, useRouter } from '../../lib/router';
import { DetailScreen } from './DetailScreen';
import { QueueScreen } from './QueueScreen';
import { RfiOwner } from './RfiOwner';

/** Windows at least this wide show the queue and the selected RFI side by side. */
export const SPLIT_MIN_WIDTH = 1200;
const QUERY = `(min-width: ${SPLIT_MIN_WIDTH}px)`;

function useWide(): boolean {
  return useSyncExternalStore(
    (fn) => {
      const m = window.matchMedia(QUERY);
      m.addEventListener('change', fn);
      return () => m.removeEventListener('change', fn);
    },
    () => window.matchMedia(QUERY).matches,
  );
}

/** One RFI of the profile the route names; named by id alone, the page first asks whose it is. */
function RfiPane({ id, profileId, inSplit }: { id: string; profileId: string | null; inSplit?: boolean }) {
  return profileId ? (
    <DetailScreen key={`${profileId}/${id}`} id={id} profileId={profileId} inSplit={inSplit} />
  ) : (
    <RfiOwner key={id} id={id} inSplit={inSplit} />
  );
}

/**
 * #/rfis → the queue; #/rfis/<id>?profile=<profile id> → one RFI of that profile. On wide windows, as in a mail client, the queue and
 * the selected RFI sit side by side: moving the highlighted row (j/k, arrows) shows it at once and
 * the URL follows (replacing the history entry, so Back leaves the queue rather than replaying
 * every row); a click or Enter adds a history entry. Narrow windows show one or the other.
 */
export function RfisScreen({ params }: { params: string[] }) {
  const id = params[0];
  const profileId = useRouteQuery().get('profile');
  const wide = useWide();
  const navigate = useRouter((s) => s.navigate);

  if (!wide) {
    return id ? (
      <RfiPane id={id} profileId={profileId} />
    ) : (
      <QueueScreen onOpen={(rfi) => navigate(rfiPath(rfi))} />
    );
  }
  return (
    <div className="rfi-split" data-testid="rfi-split">
      <div className="rfi-split__queue">
        <QueueScreen
          compact
          selected={id ? { id, profileId: profileId ?? undefined } : null}
          onSelect={(rfi) => navigate(rfiPath(rfi), { replace: true })}
          onOpen={(rfi) => {
            if (rfi.id !== id || rfi.profileId !== profileId) navigate(rfiPath(rfi));
          }}
        />
      </div>
      <div className="rfi-split__detail">
        {id ? (
          <RfiPane id={id} profileId={profileId} inSplit />
        ) : (
          <EmptyState title="No RFI selected" icon={<Inbox size={28} />}>
            Choose an RFI in the queue (j/k or the arrow keys move, Enter opens).
          </EmptyState>
        )}
      </div>
    </div>
  );
}

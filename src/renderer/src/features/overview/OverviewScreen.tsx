import { Suspense, lazy, useEffect, useId } from 'react';
import type { MouseEvent, ReactNode } from 'react';
import { BAND_LABELS } from '../../../../shared/rfi-view';
import { Countdown } from '../../components/Countdown';
import { Money } from '../../components/Money';
import { StatusBadge, statusLabel } from '../../components/StatusBadge';
import { CopyableId, Skeleton } from '../../components/ui';
import { useShallow } from 'zustand/react/shallow';
import { useSubscription } from '../../lib/events';
import { useRouter, withQuery } from '../../lib/router';
import { initialFilter, useQueue } from '../rfis/queue-store';
import type { QueueFilter } from '../rfis/queue-store';
import { AWAITING_STATUS, RUNNING_BANDS, overviewSubscription, useOverview } from './store';
import type { RunningBand } from './store';
import { quoteTitle, returnTitle } from './labels';
import { DueSoon } from './DueSoon';
import { rfiTypeWords } from '../../../../shared/words';

/** The charts (plain SVG, BarChart.tsx) are a chunk of their own, not in the first paint's JS. */
const OverviewCharts = lazy(() => import('./OverviewCharts'));
const BandChart = lazy(() => import('./OverviewCharts').then((m) => ({ default: m.BandChart })));

const BAND_HINTS: Record<RunningBand, string> = {
  on_track: '7 days or more left',
  at_risk: 'less than 7 days left',
  breached: 'deadline passed',
};

/** A link to the RFI queue with these filters (the queue keeps its filters in its store). */
function QueueLink({
  filter,
  children,
  className,
  label,
  testId,
}: {
  filter: Partial<QueueFilter>;
  children: ReactNode;
  className?: string;
  label?: string;
  testId?: string;
}) {
  const navigate = useRouter((s) => s.navigate);
  // The band and status show in the address too (as the charts' links do); the queue's store holds the filter.
  const to = withQuery('/rfis', { band: filter.band, status: filter.status });
  const open = (e: MouseEvent<HTMLAnchorElement>): void => {
    e.preventDefault();
    useQueue.getState().setFilter({ ...initialFilter, ...filter });
    navigate(to);
  };
  return (
    <a href={`#${to}`} className={className} aria-label={label} onClick={open} data-testid={testId}>
      {children}
    </a>
  );
}

/** The home screen: where work is waiting, each number a link to the items behind it. */
export function OverviewScreen() {
  const { counts, awaiting, quotes, offsetMs, returns, debtors, errors, loaded } = useOverview(
    useShallow((s) => ({
      counts: s.counts,
      awaiting: s.awaiting,
      quotes: s.quotes,
      offsetMs: s.offsetMs,
      returns: s.returns,
      debtors: s.debtors,
      errors: s.errors,
      loaded: s.loaded,
    })),
  );
  const id = useId();
  useSubscription(overviewSubscription);

  useEffect(() => {
    const { loadRfis, loadQuotes, loadReturns } = useOverview.getState();
    void loadRfis();
    void loadQuotes();
    void loadReturns();
  }, []);

  const awaitingTotal = awaiting ? RUNNING_BANDS.reduce((n, b) => n + awaiting[b], 0) + awaiting.none : 0;

  return (
    <section className="screen overview" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>Overview</h1>

      <div className="overview__grid">
        <figure
          className="panel overview__deadlines chart--bands"
          data-testid="chart-bands"
          aria-labelledby={`${id}-bands`}
        >
          <figcaption>
            <h2 id={`${id}-bands`}>RFIs by deadline band</h2>
          </figcaption>
          {errors.rfis && (
            <p className="notice notice--bad" role="alert">
              {errors.rfis}
            </p>
          )}
          {!awaiting ? (
            <p role="status">{loaded.rfis ? 'No RFI counts.' : 'Loading…'}</p>
          ) : (
            <>
              <Suspense fallback={<Skeleton label="Loading the deadline chart" lines={4} />}>
                <BandChart />
              </Suspense>
              <p className="muted" id={`${id}-bands-note`}>
                RFIs waiting for action (status “{statusLabel(AWAITING_STATUS)}”): {awaitingTotal}. Select a
                band to open those RFIs in the queue.
              </p>
              <ul
                className="chart__links overview__band-links"
                aria-label="Open the RFIs awaiting action in a band"
                aria-describedby={`${id}-bands-note`}
              >
                {RUNNING_BANDS.map((band) => (
                  <li key={band}>
                    <QueueLink filter={{ status: AWAITING_STATUS, band }} testId={`overview-band-${band}`}>
                      {BAND_LABELS[band]} ({BAND_HINTS[band]}):{' '}
                      <span data-testid={`overview-band-${band}-count`}>{awaiting[band]}</span> awaiting
                      action
                    </QueueLink>
                  </li>
                ))}
                {awaiting.none > 0 && (
                  <li>
                    <QueueLink filter={{ status: AWAITING_STATUS, band: 'none' }} testId="overview-band-none">
                      {awaiting.none} without a running deadline
                    </QueueLink>
                  </li>
                )}
              </ul>
            </>
          )}
          {counts && (
            <p className="overview__totals">
              <QueueLink filter={{}} testId="overview-total">
                {counts.total} RFIs in all
              </QueueLink>
              {' · '}
              <QueueLink filter={{ unreadOnly: true }} testId="overview-unread">
                {counts.unread} unread
              </QueueLink>
            </p>
          )}
        </figure>

        <DueSoon />

        <CountList
          title="RFIs by status"
          counts={counts?.byStatus}
          kind="status"
          words={(s) => statusLabel(s)}
          loaded={loaded.rfis}
        />
        <CountList
          title="RFIs by type"
          counts={counts?.byType}
          kind="type"
          words={rfiTypeWords}
          loaded={loaded.rfis}
        />

        <section className="panel" aria-labelledby={`${id}-quotes`}>
          <h2 id={`${id}-quotes`}>Open exchange quotes</h2>
          {errors.quotes && (
            <p className="notice notice--bad" role="alert">
              {errors.quotes}
            </p>
          )}
          {!loaded.quotes ? (
            <p role="status">Loading…</p>
          ) : quotes.length === 0 ? (
            <p className="muted" data-testid="overview-quotes-empty">
              No open quote. <a href="#/exchange/new">New quote</a>
            </p>
          ) : (
            <ul className="overview__items" data-testid="overview-quotes">
              {quotes.map((o) => (
                <li key={o.id} data-testid="overview-quote" data-order-id={o.id}>
                  <a href={`#/exchange/${encodeURIComponent(o.id)}`} title={`Order ${o.id}`}>
                    {quoteTitle(o.request)}
                  </a>{' '}
                  <StatusBadge status={o.displayStatus} />{' '}
                  {o.displayStatus === 'in_progress' && o.crypto?.quote_valid_until && (
                    <Countdown
                      deadline={o.crypto.quote_valid_until}
                      offsetMs={offsetMs}
                      label="Quote valid for"
                      intervalMs={1000}
                    />
                  )}
                </li>
              ))}
            </ul>
          )}
        </section>

        <section className="panel" aria-labelledby={`${id}-returns`}>
          <h2 id={`${id}-returns`}>Returns in flight</h2>
          {errors.returns && (
            <p className="notice notice--bad" role="alert">
              {errors.returns}
            </p>
          )}
          {!loaded.returns ? (
            <p role="status">Loading…</p>
          ) : returns.length === 0 ? (
            <p className="muted" data-testid="overview-returns-empty">
              No return in flight. <a href="#/returns">Find a transfer</a>
            </p>
          ) : (
            <ul className="overview__items" data-testid="overview-returns">
              {returns.map((e) => (
                <li key={e.operationId} data-testid="overview-return" data-transaction={e.transactionId}>
                  <a href={`#/returns/${encodeURIComponent(e.transactionId)}`}>
                    {returnTitle(debtors[e.transactionId])} —{' '}
                    <Money amount={e.amount} currency={e.currency || null} />
                  </a>{' '}
                  {e.status && <StatusBadge status={e.status} />}
                  <br />
                  <CopyableId id={e.transactionId} kind="transaction id" className="overview__item-id" />
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
      <Suspense fallback={<p className="muted">Loading the charts…</p>}>
        <OverviewCharts />
      </Suspense>
    </section>
  );
}

function CountList({
  title,
  counts,
  kind,
  words,
  loaded,
}: {
  title: string;
  counts: Record<string, number> | undefined;
  kind: 'status' | 'type';
  words: (key: string) => string;
  loaded: boolean;
}) {
  const id = useId();
  const entries = Object.entries(counts ?? {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return (
    <section className="panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{title}</h2>
      {entries.length === 0 ? (
        <p className="muted">{loaded ? 'No RFIs.' : 'Loading…'}</p>
      ) : (
        <ul className="overview__counts" data-testid={`overview-by-${kind}`}>
          {entries.map(([key, n]) => (
            <li key={key}>
              <QueueLink filter={{ [kind]: key }} testId={`overview-${kind}-${key}`}>
                <span className="overview__count-n">{n}</span> {words(key)}
              </QueueLink>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

import { Suspense, lazy, useEffect, useId } from 'react';
import type { MouseEvent, ReactNode } from 'react';
import { BAND_LABELS } from '../../../../shared/rfi-view';
import type { DeadlineBand } from '../../../../shared/rfi-view';
import { Countdown } from '../../components/Countdown';
import { Money } from '../../components/Money';
import { StatusBadge, statusLabel } from '../../components/StatusBadge';
import { useShallow } from 'zustand/react/shallow';
import { useSubscription } from '../../lib/events';
import { useRouter } from '../../lib/router';
import { initialFilter, useQueue } from '../rfis/queue-store';
import type { QueueFilter } from '../rfis/queue-store';
import { AWAITING_STATUS, RUNNING_BANDS, overviewSubscription, useOverview } from './store';
import type { RunningBand } from './store';

/** The charts (recharts) are a chunk of their own, not in the first paint's JS. */
const OverviewCharts = lazy(() => import('./OverviewCharts'));

/** Icons beside the words (never colour alone); the same marks as the queue's deadline column. */
const BAND_MARKS: Record<DeadlineBand, string> = { on_track: '✓', at_risk: '⚠', breached: '✕', none: '–' };

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
  const open = (e: MouseEvent<HTMLAnchorElement>): void => {
    e.preventDefault();
    useQueue.getState().setFilter({ ...initialFilter, ...filter });
    navigate('/rfis');
  };
  return (
    <a href="#/rfis" className={className} aria-label={label} onClick={open} data-testid={testId}>
      {children}
    </a>
  );
}

/** The home screen: where work is waiting, each number a link to the items behind it. */
export function OverviewScreen() {
  const { counts, awaiting, quotes, offsetMs, returns, errors, loaded } = useOverview(
    useShallow((s) => ({
      counts: s.counts,
      awaiting: s.awaiting,
      quotes: s.quotes,
      offsetMs: s.offsetMs,
      returns: s.returns,
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

  const max = awaiting ? Math.max(1, ...RUNNING_BANDS.map((b) => awaiting[b])) : 1;
  const awaitingTotal = awaiting ? RUNNING_BANDS.reduce((n, b) => n + awaiting[b], 0) + awaiting.none : 0;

  return (
    <section className="screen overview" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>Overview</h1>

      <div className="overview__grid">
        <section className="panel overview__deadlines" aria-labelledby={`${id}-bands`}>
          <h2 id={`${id}-bands`}>RFIs awaiting action by deadline</h2>
          {errors.rfis && (
            <p className="notice notice--bad" role="alert">
              {errors.rfis}
            </p>
          )}
          {!awaiting ? (
            <p role="status">{loaded.rfis ? 'No RFI counts.' : 'Loading…'}</p>
          ) : (
            <figure className="band-chart">
              <figcaption id={`${id}-chart-caption`}>
                RFIs waiting for action (status “{statusLabel(AWAITING_STATUS)}”): {awaitingTotal}, per
                deadline band. Select a band to open those RFIs in the queue.
              </figcaption>
              <ul className="band-chart__bars" aria-describedby={`${id}-chart-caption`}>
                {RUNNING_BANDS.map((band) => {
                  const n = awaiting[band];
                  return (
                    <li key={band} className={`band-chart__row band-chart__row--${band}`}>
                      <QueueLink
                        filter={{ status: AWAITING_STATUS, band }}
                        className="band-chart__link"
                        testId={`overview-band-${band}`}
                      >
                        <span className="band-chart__label">
                          <span aria-hidden="true" className="band-chart__mark">
                            {BAND_MARKS[band]}
                          </span>{' '}
                          {BAND_LABELS[band]}
                          <span className="band-chart__hint"> · {BAND_HINTS[band]}</span>
                        </span>
                        <span className="band-chart__track" aria-hidden="true">
                          {n > 0 && (
                            <span className="band-chart__bar" style={{ width: `${(n / max) * 100}%` }} />
                          )}
                        </span>
                        <span className="band-chart__n" data-testid={`overview-band-${band}-count`}>
                          {n}
                        </span>
                        <span className="visually-hidden">
                          {' '}
                          RFI{n === 1 ? '' : 's'} awaiting action: open them in the queue
                        </span>
                      </QueueLink>
                    </li>
                  );
                })}
              </ul>
              {awaiting.none > 0 && (
                <p className="muted" data-testid="overview-band-none">
                  {awaiting.none} without a running deadline.
                </p>
              )}
            </figure>
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
        </section>

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
          words={(t) => t.replace(/_/g, ' ')}
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
                  <a href={`#/exchange/${encodeURIComponent(o.id)}`}>
                    {o.request.side} {o.request.symbol}{' '}
                    <Money amount={o.request.requested_amount} currency={o.request.requested_asset} />
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
                    Return of <code>{e.transactionId}</code>
                  </a>{' '}
                  <Money amount={e.amount} currency={e.currency || null} />{' '}
                  {e.status && <StatusBadge status={e.status} />}
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

import { useEffect, useMemo, useState } from 'react';
import type { DeadlineBand } from '../../../../shared/rfi-view';
import { BAND_LABELS } from '../../../../shared/rfi-view';
import { bankNow } from '../../lib/bank-clock';
import { call } from '../../lib/desk';
import { useRouter, withQuery } from '../../lib/router';
import { Button, ErrorState, Skeleton } from '../../components/ui';
import { initialFilter, useQueue } from '../rfis/queue-store';
import { AWAITING_STATUS, useOverview } from './store';
import { bandBars, usd, weeklyRfis, weeklyVolume } from './chart-data';
import type { WeekBar, VolumeBar } from './chart-data';
import { BarChart } from './BarChart';
import type { ChartSeries } from './BarChart';
import './charts.css';

/** Series colours come from the tokens through classes; the legend is drawn from the same list. */
const BAND_SERIES: readonly ChartSeries[] = [
  { key: 'awaiting', name: 'Awaiting action', tone: 'warn' },
  { key: 'other', name: 'Other RFIs', tone: 'muted' },
];
const WEEK_SERIES: readonly ChartSeries[] = [
  { key: 'opened', name: 'Opened', tone: 'accent' },
  { key: 'answered', name: 'Answered or closed (by last change)', tone: 'ok' },
];
const VOLUME_SERIES: readonly ChartSeries[] = [
  { key: 'returns', name: 'Returns', tone: 'accent' },
  { key: 'exchange', name: 'Exchange (settled)', tone: 'ok' },
];
const compactUsd = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

interface Loaded {
  weeks: WeekBar[];
  volume: VolumeBar[];
}

async function loadTrends(): Promise<Loaded> {
  const [list, returns, orders] = await Promise.all([
    call('rfis.list', { sort: 'created_desc' }),
    call('returns.list', undefined),
    call('crypto.list', undefined),
  ]);
  // Weeks are the bank's: its RFIs and transfers are stamped in its clock.
  const now = bankNow();
  return {
    weeks: weeklyRfis(list.items, now),
    volume: weeklyVolume(
      returns.entries,
      orders.orders.map((o) => ({
        status: o.displayStatus,
        at: o.crypto?.updated_at ?? o.createdAt,
        usdAmount: o.crypto
          ? o.request.side === 'buy'
            ? o.crypto.customer_pays_amount
            : o.crypto.customer_receives_amount
          : null,
      })),
      now,
    ),
  };
}

/**
 * The deadline bands as a chart (awaiting action stacked on the rest). The overview draws its
 * keyboard links (with the counts) itself, so the numbers paint before this chunk arrives.
 */
export function BandChart() {
  const counts = useOverview((s) => s.counts);
  const awaiting = useOverview((s) => s.awaiting);
  const navigate = useRouter((s) => s.navigate);
  const bands = useMemo(
    () => (counts && awaiting ? bandBars(counts.byBand, { ...awaiting }) : null),
    [counts, awaiting],
  );
  if (!bands) return <Skeleton label="Loading the deadline chart" lines={4} />;
  const openQueue = (band: DeadlineBand, awaitingOnly: boolean): void => {
    const status = awaitingOnly ? AWAITING_STATUS : '';
    useQueue.getState().setFilter({ ...initialFilter, band, status });
    navigate(withQuery('/rfis', { band, status }));
  };
  return (
    <BarChart
      data={bands}
      series={BAND_SERIES}
      category={(b) => BAND_LABELS[b.band]}
      value={(b, k) => (k === 'awaiting' ? b.awaiting : b.other)}
      stacked
      horizontal
      height={180}
      onSelect={(b, k) => openQueue(b.band, k === 'awaiting')}
      data-testid="chart-bands"
    />
  );
}

/**
 * The overview's trend charts (plain SVG, see BarChart.tsx), loaded as a chunk of their own. Every mark opens the list behind it, and the same
 * targets are links under each chart for the keyboard.
 */
export default function OverviewCharts() {
  const counts = useOverview((s) => s.counts);
  const navigate = useRouter((s) => s.navigate);
  const [trends, setTrends] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    loadTrends()
      .then((t) => {
        if (live) {
          setTrends(t);
          setError(null);
        }
      })
      .catch((err: unknown) => {
        if (live) setError(err instanceof Error ? err.message : String(err));
      });
    return () => {
      live = false;
    };
  }, [attempt, counts]);

  const openWeek = (week: string): void => {
    useQueue.getState().setFilter({ ...initialFilter, week });
    navigate(withQuery('/rfis', { week }));
  };

  return (
    <section className="overview-charts" aria-label="Trends">
      {error ? (
        <ErrorState
          title="The trends could not be read"
          action={<Button onPress={() => setAttempt((n) => n + 1)}>Try again</Button>}
        >
          {error}
        </ErrorState>
      ) : !trends ? (
        <Skeleton label="Loading the trends" lines={6} />
      ) : (
        <>
          <figure className="chart chart--weeks" data-testid="chart-weeks">
            <figcaption className="chart__title">
              RFIs opened and answered per week (last 12 weeks)
            </figcaption>
            <BarChart
              data={trends.weeks}
              series={WEEK_SERIES}
              category={(w) => w.label}
              value={(w, k) => (k === 'opened' ? w.opened : w.answered)}
              onSelect={(w) => openWeek(w.week)}
            />
            <ul className="chart__links" aria-label="Open the RFIs opened in a week">
              {trends.weeks
                .filter((w) => w.opened > 0)
                .map((w) => (
                  <li key={w.week}>
                    <a
                      href={`#${withQuery('/rfis', { week: w.week })}`}
                      onClick={(e) => {
                        e.preventDefault();
                        openWeek(w.week);
                      }}
                      data-testid={`chart-week-${w.week}`}
                    >
                      Week of {w.label}: {w.opened} opened
                    </a>
                  </li>
                ))}
            </ul>
          </figure>
          <figure className="chart chart--volume" data-testid="chart-volume">
            <figcaption className="chart__title">Returns and exchange volume per week (USD)</figcaption>
            <BarChart
              data={trends.volume}
              series={VOLUME_SERIES}
              category={(v) => v.label}
              value={(v, k) => (k === 'returns' ? v.returns : v.exchange)}
              format={(v) => `${compactUsd.format(v)} USD`}
              onSelect={(_v, k) => navigate(k === 'returns' ? '/returns' : '/exchange')}
            />
            <p className="chart__note">
              This week: returns {usd(trends.volume.at(-1)?.returnsMinor ?? 0n)}, exchange{' '}
              {usd(trends.volume.at(-1)?.exchangeMinor ?? 0n)}. <a href="#/returns">See the return intents</a>{' '}
              · <a href="#/exchange">See the quotes and orders</a>
            </p>
          </figure>
        </>
      )}
    </section>
  );
}

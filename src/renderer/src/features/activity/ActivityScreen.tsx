import { useEffect, useMemo, useState } from 'react';
import { Download } from 'lucide-react';
import { useShallow } from 'zustand/react/shallow';
import type { AuditEntryView } from '../../../../shared/ipc/channels/audit';
import {
  Badge,
  Button,
  CopyableId,
  DataTable,
  EmptyState,
  ErrorState,
  RelativeTime,
  Select,
  Skeleton,
} from '../../components/ui';
import type { BadgeTone, DataColumn } from '../../components/ui';
import { useSubscription } from '../../lib/events';
import { filterActivity, noFilter } from './filter';
import type { ActivityFilter } from './filter';
import { activitySubscription, useActivity } from './store';
import { activitySentence, whoWords } from './words';
import type { ActivityNames } from './words';
import { dateWords, plural, rfiTypeWords } from '../../../../shared/words';
import { useQueue } from '../rfis/queue-store';
import { useSettings } from '../settings/store';
import { TeamLogs } from '../team-share/TeamActivity';
import './activity.css';

const outcomeLabel: Record<AuditEntryView['outcome'], string> = {
  succeeded: 'Succeeded',
  failed: 'Refused',
  pending: 'Unclear — check at the bank',
};
/** The badge in a row: one word (the row's title and the detail say the whole). */
const outcomeShort: Record<AuditEntryView['outcome'], string> = {
  succeeded: 'Succeeded',
  failed: 'Refused',
  pending: 'Unclear',
};
const outcomeTone: Record<AuditEntryView['outcome'], BadgeTone> = {
  succeeded: 'ok',
  failed: 'bad',
  pending: 'warn',
};

const kindOptions = [
  { value: 'all', label: 'All kinds' },
  { value: 'return', label: 'Returns' },
  { value: 'exchange', label: 'Exchange' },
  { value: 'rfi', label: 'RFI answers and uploads' },
  { value: 'webhook', label: 'Webhook' },
  { value: 'access', label: 'Profiles, tokens and bank addresses' },
  { value: 'other', label: 'Other' },
];
const outcomeOptions = [
  { value: 'all', label: 'Any outcome' },
  { value: 'succeeded', label: 'Succeeded' },
  { value: 'failed', label: 'Refused' },
  { value: 'pending', label: 'Unclear' },
];
const dateOptions = [
  { value: 'any', label: 'Any time' },
  { value: 'today', label: 'Today' },
  { value: '7', label: 'Last 7 days' },
  { value: '30', label: 'Last 30 days' },
];

/** 'YYYY-MM-DD' of the local day `daysAgo` days before today. */
function localDay(daysAgo: number): string {
  const d = new Date();
  d.setDate(d.getDate() - daysAgo);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function columnsFor(names: ActivityNames): DataColumn<AuditEntryView>[] {
  return [
    {
      id: 'at',
      accessorKey: 'at',
      header: 'When',
      cell: (c) => <RelativeTime value={c.row.original.at} />,
      meta: { width: '96px' },
    },
    {
      id: 'summary',
      accessorFn: (e) => activitySentence(e, names),
      header: 'What',
      // What was done first, whole; what it moved after it in muted words (cut last, full on hover
      // and in the entry's detail below).
      cell: (c) => {
        const sentence = activitySentence(c.row.original, names);
        const at = sentence.indexOf(' — ');
        return at < 0 ? (
          <span className="activity-what__head">{sentence}</span>
        ) : (
          <span className="activity-what">
            <span className="activity-what__head">{sentence.slice(0, at)}</span>
            <span className="activity-what__rest"> — {sentence.slice(at + 3)}</span>
          </span>
        );
      },
      meta: { width: 'minmax(0, 5fr)' },
    },
    {
      id: 'outcome',
      accessorKey: 'outcome',
      header: 'Outcome',
      cell: (c) => (
        <Badge tone={outcomeTone[c.row.original.outcome]}>{outcomeShort[c.row.original.outcome]}</Badge>
      ),
      meta: { width: '120px', title: (r) => outcomeLabel[r.outcome] },
    },
    {
      id: 'who',
      accessorFn: (e) => whoWords(e, names).name,
      header: 'Who',
      cell: (c) => <span data-testid="audit-who">{whoWords(c.row.original, names).name}</span>,
      meta: {
        // Wide enough for an entity's or analyst's name whole ("Alder Trade GmbH").
        width: 'minmax(170px, 1.2fr)',
        // The entry's detail names who too; on a narrow window the sentence keeps the room.
        minTableWidth: 900,
        title: (e) => {
          const w = whoWords(e, names);
          return [w.name, w.detail].filter(Boolean).join(' — ');
        },
      },
    },
    {
      id: 'environment',
      accessorKey: 'environmentName',
      header: 'Environment',
      // The entry's detail names it too; on a narrow window it gives way to the sentence.
      meta: { width: 'minmax(170px, 1fr)', minTableWidth: 1000 },
    },
  ];
}

/** What the workstation knows by name: the queue's RFIs, the profiles, the entities they act for. */
function useActivityNames(): ActivityNames {
  const rows = useQueue((s) => s.rows);
  const entities = useQueue((s) => s.entities);
  const profiles = useSettings((s) => s.view?.profiles);
  useEffect(() => {
    if (!useQueue.getState().loaded) void useQueue.getState().load();
    if (!useSettings.getState().view) void useSettings.getState().load();
  }, []);
  return useMemo(
    () => ({
      rfis: new Map(rows.map((r) => [r.id, r.description.trim() || `${rfiTypeWords(r.type)} RFI`])),
      profiles: new Map((profiles ?? []).map((p) => [p.id, p.name])),
      entities: new Map(entities.map((e) => [e.profileId, e.name])),
    }),
    [rows, entities, profiles],
  );
}

/** The raw record of one entry: who, operation, idempotency key, ids, detail (nothing wraps). */
function EntryDetail({ entry, names }: { entry: AuditEntryView; names: ActivityNames }) {
  const who = whoWords(entry, names);
  return (
    <section className="activity-detail" aria-label="Entry detail" data-testid="audit-detail">
      <h2 className="activity-detail__title">{activitySentence(entry, names)}</h2>
      <dl className="facts activity-detail__facts">
        <dt>Who</dt>
        <dd data-testid="audit-detail-who">
          {who.name}
          {who.detail && <span className="muted"> — {who.detail}</span>}
          {who.legalEntityId && (
            <>
              {' '}
              <CopyableId id={who.legalEntityId} kind="legal entity id" />
            </>
          )}
        </dd>
        <dt>Environment</dt>
        <dd>{entry.environmentName}</dd>
        <dt>Operation</dt>
        <dd>
          <code data-testid="audit-operation">{entry.operation}</code>
        </dd>
        <dt>Target</dt>
        <dd>{entry.target ? <CopyableId id={entry.target} kind="target" /> : '—'}</dd>
        <dt>Idempotency key</dt>
        <dd>
          {entry.idempotencyKey ? <CopyableId id={entry.idempotencyKey} kind="idempotency key" /> : '—'}
        </dd>
        <dt>When</dt>
        <dd>
          <RelativeTime value={entry.at} /> <span className="muted">({dateWords(entry.at)})</span>
        </dd>
        <dt>Outcome</dt>
        <dd>{outcomeLabel[entry.outcome]}</dd>
        {entry.detail && (
          <>
            <dt>Detail</dt>
            <dd>{entry.detail}</dd>
          </>
        )}
        <dt>Entry</dt>
        <dd>
          <CopyableId id={entry.id} kind="entry id" />
        </dd>
      </dl>
    </section>
  );
}

/** The local audit log of every write the analyst made, in words, with CSV export. */
export function ActivityScreen() {
  const { entries, nextBefore, skipped, loading, loaded, error, exportNotice } = useActivity(
    useShallow((s) => ({
      entries: s.entries,
      nextBefore: s.nextBefore,
      skipped: s.skipped,
      loading: s.loading,
      loaded: s.loaded,
      error: s.error,
      exportNotice: s.exportNotice,
    })),
  );
  const { load, loadMore, exportCsv } = useActivity.getState();
  useSubscription(activitySubscription);
  const [filter, setFilter] = useState<ActivityFilter>(noFilter);
  const [datePreset, setDatePreset] = useState('any');
  const [activeId, setActiveId] = useState<string | null>(null);
  const names = useActivityNames();
  const columns = useMemo(() => columnsFor(names), [names]);

  useEffect(() => {
    void load();
  }, [load]);

  const shown = useMemo(() => filterActivity(entries, filter), [entries, filter]);
  const active = shown.find((e) => e.id === activeId) ?? null;

  const onDate = (v: string): void => {
    setDatePreset(v);
    setFilter((f) => ({
      ...f,
      from: v === 'any' ? '' : v === 'today' ? localDay(0) : localDay(Number(v) - 1),
      to: '',
    }));
  };

  return (
    <section aria-labelledby="activity-title" className="screen activity">
      <div className="activity__head">
        <h1 id="activity-title">Activity</h1>
        <Button
          icon={<Download size={16} aria-hidden="true" />}
          onPress={() => void exportCsv()}
          data-testid="audit-export"
        >
          Export CSV…
        </Button>
      </div>
      <p className="muted">
        Every write you made from this computer, newest first. Entries are never changed. The export keeps
        every raw field and adds the sentence.
      </p>
      <div aria-live="polite">
        {exportNotice && (
          <p className="notice notice--ok" data-testid="audit-export-notice">
            {exportNotice}
          </p>
        )}
        {skipped > 0 && (
          <p className="notice notice--warn">
            {plural(skipped, 'damaged line')} of the audit file could not be read and{' '}
            {skipped === 1 ? 'is' : 'are'} not shown.
          </p>
        )}
      </div>
      <div className="activity__filters" role="group" aria-label="Filters">
        <Select
          label="Kind"
          options={kindOptions}
          value={filter.kind}
          onChange={(v) => setFilter((f) => ({ ...f, kind: v as ActivityFilter['kind'] }))}
        />
        <Select
          label="Outcome"
          options={outcomeOptions}
          value={filter.outcome}
          onChange={(v) => setFilter((f) => ({ ...f, outcome: v as ActivityFilter['outcome'] }))}
        />
        <Select label="Date" options={dateOptions} value={datePreset} onChange={onDate} />
      </div>
      {error ? (
        <ErrorState
          title="The audit log could not be read"
          action={
            <Button variant="primary" onPress={() => void load()}>
              Try again
            </Button>
          }
        >
          {error}
        </ErrorState>
      ) : !loaded ? (
        <Skeleton label="Loading the audit log" lines={6} />
      ) : entries.length === 0 ? (
        <EmptyState
          title="No writes recorded yet"
          action={
            <a href="#/returns" className="ui-button ui-button--secondary">
              Return a transfer
            </a>
          }
        >
          Returns, quotes and webhook changes you make appear here as they happen.
        </EmptyState>
      ) : (
        <div className="activity__body">
          <DataTable
            data={shown}
            columns={columns}
            getRowId={(e) => e.id}
            label="Audit log entries"
            activeId={activeId}
            onActiveChange={setActiveId}
            onOpen={(id) => setActiveId(id)}
            rowTestId="audit-row"
            rowData={(e) => ({ 'data-outcome': e.outcome, 'data-operation': e.operation })}
            data-testid="audit-table"
            empty={
              <EmptyState
                title="No entry matches these filters"
                action={
                  <Button
                    onPress={() => {
                      setFilter(noFilter);
                      setDatePreset('any');
                    }}
                  >
                    Clear the filters
                  </Button>
                }
              />
            }
          />
          {active ? (
            <EntryDetail entry={active} names={names} />
          ) : (
            <p className="muted activity-detail__hint">Select an entry to see its operation, key and ids.</p>
          )}
        </div>
      )}
      {nextBefore && (
        <Button onPress={() => void loadMore()} isDisabled={loading}>
          Show older entries
        </Button>
      )}
      <TeamLogs />
    </section>
  );
}

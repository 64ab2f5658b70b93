import { useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { DOCUMENT_TYPES, DOCUMENT_TYPE_LABELS, isDocumentType } from '../../../../shared/catalogue';
import type { DocumentType } from '../../../../shared/catalogue';
import type { LockerDocumentView } from '../../../../shared/ipc/channels/locker';
import { FileDrop } from '../../components/FileDrop';
import {
  Badge,
  Button,
  ConfirmDialog,
  EmptyState,
  SearchField,
  Select,
  TextArea,
  TextField,
} from '../../components/ui';
import { useSubscription } from '../../lib/events';
import { formatBytes } from '../rfis/format';
import { lockerSubscription, useLocker } from './store';
import './locker.css';
import { dateWords, dayWords, rfiTypeWords, statusWords } from '../../../../shared/words';
import { useQueue } from '../rfis/queue-store';
import { rfiPath } from '../../lib/router';
import { SharedLocker, ShareWithTeam } from '../team-share/SharedLocker';

/** RFI id → its subject, from the queue this workstation holds (read once if not yet). */
function useRfiNames(): Readonly<Record<string, string>> {
  const rows = useQueue((s) => s.rows);
  useEffect(() => {
    if (!useQueue.getState().loaded && !useQueue.getState().loading) void useQueue.getState().load();
  }, []);
  return useMemo(
    () => Object.fromEntries(rows.map((r) => [r.id, r.description.trim() || `${rfiTypeWords(r.type)} RFI`])),
    [rows],
  );
}

const typeOptions = DOCUMENT_TYPES.map((t) => ({ value: t, label: DOCUMENT_TYPE_LABELS[t] }));
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Expiry in words, with a tone (the words carry the meaning; colour only repeats it). */
export function ExpiryBadge({ doc }: { doc: LockerDocumentView }) {
  if (doc.expiry === 'none' || doc.daysLeft === null) return <Badge tone="neutral">No expiry</Badge>;
  if (doc.expiry === 'expired') {
    return <Badge tone="bad">Expired on {dayWords(doc.current.expiresOn)}</Badge>;
  }
  const days = doc.daysLeft === 0 ? 'today' : `in ${doc.daysLeft} day${doc.daysLeft === 1 ? '' : 's'}`;
  return (
    <Badge tone={doc.expiry === 'soon' ? 'warn' : 'ok'}>
      {doc.expiry === 'soon' ? `Expires ${days}` : `Valid until ${dayWords(doc.current.expiresOn)}`}
    </Badge>
  );
}

function dateProblem(value: string): string | null {
  return value === '' || DATE.test(value)
    ? null
    : 'Write the date as year-month-day, for example 2027-03-31.';
}

/** Adding a document: its type, holder, dates and note, then the native picker or a drop. */
function AddDocument() {
  const { addPicked, addDropped } = useLocker.getState();
  const [documentType, setDocumentType] = useState<DocumentType>('passport');
  const [holderKind, setHolderKind] = useState<'person' | 'company'>('person');
  const [holder, setHolder] = useState('');
  const [issuedOn, setIssuedOn] = useState('');
  const [expiresOn, setExpiresOn] = useState('');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const meta = () => {
    if (holder.trim() === '') {
      setProblem('Name the person or company the document belongs to.');
      return null;
    }
    if (dateProblem(issuedOn) || dateProblem(expiresOn)) return null;
    setProblem(null);
    return {
      documentType,
      holder: { kind: holderKind, name: holder.trim() },
      note,
      issuedOn: issuedOn || null,
      expiresOn: expiresOn || null,
    };
  };
  const done = (added: boolean) => {
    if (!added) return;
    setHolder('');
    setIssuedOn('');
    setExpiresOn('');
    setNote('');
  };

  return (
    <section aria-labelledby="locker-add-title" className="locker__add">
      <h2 id="locker-add-title">Add a document</h2>
      <div className="locker__form">
        <Select
          label="Document type"
          options={typeOptions}
          value={documentType}
          onChange={(v) => {
            if (isDocumentType(v)) setDocumentType(v);
          }}
        />
        <Select
          label="Belongs to"
          options={[
            { value: 'person', label: 'A person' },
            { value: 'company', label: 'A company' },
          ]}
          value={holderKind}
          onChange={(v) => setHolderKind(v === 'company' ? 'company' : 'person')}
        />
        <TextField
          label={holderKind === 'company' ? 'Company name' : 'Person’s name'}
          value={holder}
          onChange={setHolder}
          errorMessage={problem}
          isInvalid={problem !== null}
        />
        <TextField
          label="Issued on"
          // A past day as the example: a document is issued before it is filed.
          placeholder="e.g. 2025-03-31 (optional)"
          value={issuedOn}
          onChange={setIssuedOn}
          errorMessage={dateProblem(issuedOn)}
          isInvalid={dateProblem(issuedOn) !== null}
        />
        <TextField
          label="Expires on"
          placeholder="e.g. 2027-03-31 (optional)"
          value={expiresOn}
          onChange={setExpiresOn}
          errorMessage={dateProblem(expiresOn)}
          isInvalid={dateProblem(expiresOn) !== null}
        />
        <TextArea label="Note" value={note} onChange={setNote} />
      </div>
      <FileDrop
        label="Add to the locker"
        disabled={busy}
        onFiles={(files) => {
          const m = meta();
          const [file] = files;
          if (!m || !file) return;
          setBusy(true);
          void addDropped(file, m)
            .then(done)
            .finally(() => setBusy(false));
        }}
      >
        <Button
          variant="primary"
          isPending={busy}
          onPress={() => {
            const m = meta();
            if (!m) return;
            setBusy(true);
            void addPicked(m)
              .then(done)
              .finally(() => setBusy(false));
          }}
        >
          Choose a file and add it…
        </Button>
        <span className="muted">PDF, PNG or JPEG. The locker keeps an encrypted copy.</span>
      </FileDrop>
    </section>
  );
}

function DocumentRow({ doc }: { doc: LockerDocumentView }) {
  const { replacePicked, remove } = useLocker.getState();
  const [confirming, setConfirming] = useState(false);
  const openRfis = doc.usedBy.filter((u) => u.open);
  const rfiNames = useRfiNames();
  const label = DOCUMENT_TYPE_LABELS[doc.documentType as DocumentType] ?? doc.documentType;
  return (
    <li
      className="locker__item"
      id={`locker-${doc.id}`}
      aria-label={`${label} of ${doc.holder.name}`}
      data-testid="locker-item"
      data-problem={doc.problem ? 'true' : undefined}
    >
      <div className="locker__item-head">
        <strong>{label}</strong> · {doc.holder.name}{' '}
        <span className="muted">({doc.holder.kind === 'company' ? 'company' : 'person'})</span>{' '}
        <ExpiryBadge doc={doc} />
      </div>
      <div className="muted">
        {doc.current.name} · {formatBytes(doc.current.sizeBytes)} · sha256{' '}
        <code>{doc.current.sha256.slice(0, 16)}…</code>
        {doc.current.issuedOn ? ` · issued ${dayWords(doc.current.issuedOn)}` : ''}
      </div>
      {doc.note && <p className="locker__note">{doc.note}</p>}
      {doc.problem && (
        <div className="notice notice--bad locker__problem" data-testid="locker-item-problem">
          {/* Main's sentence says what happened and what to do; this one what it means here. */}
          <p>
            {doc.problem} Until then it cannot be used in an answer; its details and earlier versions stay.
          </p>
          <Button size="sm" variant="primary" onPress={() => void replacePicked(doc.id, {})}>
            Replace with the file…
          </Button>
        </div>
      )}
      {openRfis.length > 0 && (
        <p>
          Used by open RFIs:{' '}
          {openRfis.map((u, i) => (
            <span key={`${u.rfiId}/${u.questionId}`}>
              {i > 0 && ', '}
              <a href={`#${rfiPath({ id: u.rfiId, profileId: u.profileId })}`} title={`RFI id ${u.rfiId}`}>
                {rfiNames[u.rfiId] ?? 'An RFI'}
              </a>{' '}
              ({statusWords(u.rfiStatus).toLowerCase()})
            </span>
          ))}
        </p>
      )}
      {doc.history.length > 0 && (
        <details>
          <summary>
            {doc.history.length} earlier version{doc.history.length === 1 ? '' : 's'}
          </summary>
          <ul>
            {doc.history.map((v) => (
              <li key={v.versionId}>
                {v.name} · added {dateWords(v.addedAt)}
                {v.expiresOn ? ` · valid until ${dayWords(v.expiresOn)}` : ''} · sha256{' '}
                <code>{v.sha256.slice(0, 16)}…</code>
              </li>
            ))}
          </ul>
        </details>
      )}
      <div className="locker__actions">
        {/* A document whose copy went missing has its one way to replace it in its notice above. */}
        {!doc.problem && (
          <Button size="sm" onPress={() => void replacePicked(doc.id, {})}>
            Replace with a newer file…
          </Button>
        )}
        <ShareWithTeam doc={doc} />
        {/* Quiet until confirmed: the confirmation dialog carries the destructive action. */}
        <Button size="sm" variant="ghost" onPress={() => setConfirming(true)}>
          Remove from the locker
        </Button>
        <ConfirmDialog
          isOpen={confirming}
          onOpenChange={setConfirming}
          title="Remove this document?"
          confirmLabel="Remove it and its earlier versions"
          variant="danger"
          onConfirm={() => {
            setConfirming(false);
            void remove(doc.id);
          }}
        >
          {label} of {doc.holder.name} ({doc.current.name}) and its {doc.history.length} earlier version
          {doc.history.length === 1 ? '' : 's'} leave the locker. Answers already sent keep their copies at
          the bank.
        </ConfirmDialog>
      </div>
    </li>
  );
}

/** Brings a document's card into view and the keyboard to its first action (its way forward). */
function showDocument(id: string): void {
  const card = document.getElementById(`locker-${id}`);
  card?.scrollIntoView({ block: 'center' });
  card?.querySelector<HTMLElement>('.locker__problem button, button')?.focus({ preventScroll: true });
}

/** The evidence locker: documents kept once, reused in answers, warned about before they expire. */
export function LockerScreen() {
  const { documents, filter, loading, error, notice } = useLocker(
    useShallow((s) => ({
      documents: s.documents,
      filter: s.filter,
      loading: s.loading,
      error: s.error,
      notice: s.notice,
    })),
  );
  const { load, setFilter } = useLocker.getState();
  useSubscription(lockerSubscription);
  useEffect(() => {
    // A notice of an earlier visit is not news now.
    useLocker.setState({ notice: null });
    void load();
  }, [load]);
  const expiring = documents.filter((d) => d.expiry === 'expired' || d.expiry === 'soon');
  // A stored copy that went missing is said at the top and its document comes first in the list,
  // with the way forward (replace it, or remove it) on the document itself.
  const broken = documents.filter((d) => d.problem);
  const shown = broken.length > 0 ? [...broken, ...documents.filter((d) => !d.problem)] : documents;

  return (
    <section aria-labelledby="locker-title" className="screen locker">
      <h1 id="locker-title">Evidence locker</h1>
      <p className="muted">
        Documents you answer RFIs with again and again. Each is checked, hashed and kept encrypted on this
        computer; answering a document question offers the fitting ones first.
      </p>
      <div aria-live="polite">
        {notice && (
          <p className={`notice notice--${notice.tone}`} role={notice.tone === 'bad' ? 'alert' : 'status'}>
            {notice.text}
          </p>
        )}
        {error && (
          <p className="notice notice--bad" role="alert">
            {error}
          </p>
        )}
        {broken.length > 0 && (
          <div
            className="notice notice--bad locker__problem"
            role="alert"
            data-testid="locker-missing-copies"
          >
            <p>
              {broken.length === 1
                ? `The stored copy of ${broken[0]!.current.name} is missing or damaged.`
                : `The stored copies of ${broken.length} documents are missing or damaged: ${broken
                    .map((d) => d.current.name)
                    .join(', ')}.`}{' '}
              {broken.length === 1 ? 'It is' : 'They are'} listed first under Documents, with what to do.
            </p>
            <Button size="sm" onPress={() => showDocument(broken[0]!.id)}>
              Show {broken.length === 1 ? 'it' : 'the first'}
            </Button>
          </div>
        )}
        {expiring.length > 0 && (
          <p className="notice notice--warn" data-testid="locker-expiry-warning">
            {expiring.length} document{expiring.length === 1 ? '' : 's'} expired or expiring within 30 days:{' '}
            {expiring.map((d) => `${d.current.name} (${d.holder.name})`).join(', ')}.
          </p>
        )}
      </div>
      <SharedLocker />
      <AddDocument />
      <section aria-labelledby="locker-list-title">
        <h2 id="locker-list-title">Documents</h2>
        <div className="locker__filters" role="search" aria-label="Filter the locker">
          <SearchField label="Search" value={filter.query ?? ''} onChange={(v) => setFilter({ query: v })} />
          <Select
            label="Type"
            options={[{ value: '', label: 'All types' }, ...typeOptions]}
            value={filter.documentType ?? ''}
            onChange={(v) => setFilter({ documentType: isDocumentType(v) ? v : undefined })}
          />
          <TextField label="Holder" value={filter.holder ?? ''} onChange={(v) => setFilter({ holder: v })} />
          <Select
            label="Expiry"
            options={[
              { value: '', label: 'Any' },
              { value: 'expired', label: 'Expired' },
              { value: 'soon', label: 'Expires within 30 days' },
              { value: 'valid', label: 'Valid longer' },
              { value: 'none', label: 'No expiry' },
            ]}
            value={filter.expiry ?? ''}
            onChange={(v) =>
              setFilter({
                expiry: v === 'expired' || v === 'soon' || v === 'valid' || v === 'none' ? v : undefined,
              })
            }
          />
        </div>
        {documents.length === 0 && !loading ? (
          <EmptyState title="No documents here">
            Add a passport, a registry extract or any document you send often; it is offered when a question
            asks for it.
          </EmptyState>
        ) : (
          <ul className="locker__list" aria-label="Locker documents">
            {shown.map((d) => (
              <DocumentRow key={d.id} doc={d} />
            ))}
          </ul>
        )}
      </section>
    </section>
  );
}

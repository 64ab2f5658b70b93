import { useState } from 'react';
import type { LockerDocumentView } from '../../../../shared/ipc/channels/locker';
import type { StagedFileView } from '../../../../shared/ipc/channels/rfi-answers';
import type { SharedDocumentView } from '../../../../shared/ipc/channels/team-share';
import { Badge, Button, Select } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import { useSubscription } from '../../lib/events';
import { formatBytes } from '../rfis/format';
import './team-share.css';
import { teamActive, teamSubscription, useTeam } from '../team/store';
import { sharedEvidenceSubscription, useShared } from './store';
import { byWhomWords, sharedDocumentTitle, sharedExpiryWords } from './words';

function SharedRow({ doc }: { doc: SharedDocumentView }) {
  const expiry = sharedExpiryWords(doc.expiresOn);
  return (
    <li className="locker__item" data-testid="shared-item" aria-label={sharedDocumentTitle(doc)}>
      <div className="locker__item-head">
        <strong>{sharedDocumentTitle(doc)}</strong>{' '}
        <span className="muted">({doc.holder.kind === 'company' ? 'company' : 'person'})</span>{' '}
        <Badge tone={expiry.tone}>{expiry.words}</Badge>{' '}
        {doc.pending && <Badge tone="info">Waiting for the team server</Badge>}
      </div>
      <div className="muted">
        {doc.fileName} · {formatBytes(doc.sizeBytes)} · sha256 <code>{doc.sha256.slice(0, 16)}…</code>
      </div>
      <div className="muted" data-testid="shared-item-added">
        Added by {byWhomWords(doc.addedBy, doc.addedAt)}
      </div>
    </li>
  );
}

/**
 * The Evidence locker's team part: each legal entity's shared documents (who added them, their
 * expiry in words), pending ones marked. Nothing in solo use.
 */
export function SharedLocker() {
  useSubscription(teamSubscription);
  useSubscription(sharedEvidenceSubscription);
  const active = useTeam((s) => teamActive(s.status));
  const { entities, loaded, problem, notice } = useShared();
  if (!active) return null;
  return (
    <section aria-labelledby="shared-locker-title" className="locker__shared" data-testid="shared-locker">
      <h2 id="shared-locker-title">Shared with the team</h2>
      {problem && (
        <p role="alert" className="field-error">
          {problem}
        </p>
      )}
      {notice && (
        <p role="alert" className="field-error">
          {notice}{' '}
          <Button variant="ghost" size="sm" onPress={() => useShared.getState().dismissNotice()}>
            Dismiss
          </Button>
        </p>
      )}
      {loaded && entities.length === 0 && !problem && (
        <p className="muted">None of your profiles reaches a legal entity of your team yet.</p>
      )}
      {entities.map((e) => (
        <div key={e.legalEntityId} className="locker__shared-entity">
          <h3>{e.legalEntityName}</h3>
          {e.offline && (
            <p className="muted">The team server cannot be reached: these are the documents last read.</p>
          )}
          {e.documents.length === 0 ? (
            <p className="muted">No documents shared yet. Share one from your own documents below.</p>
          ) : (
            <ul className="locker__list" aria-label={`Documents shared at ${e.legalEntityName}`}>
              {e.documents.map((d) => (
                <SharedRow key={d.id} doc={d} />
              ))}
            </ul>
          )}
        </div>
      ))}
    </section>
  );
}

/** On a document of the analyst's own locker: share it with the team of one legal entity. */
export function ShareWithTeam({ doc }: { doc: LockerDocumentView }) {
  useSubscription(teamSubscription);
  useSubscription(sharedEvidenceSubscription);
  const active = useTeam((s) => teamActive(s.status));
  const entities = useShared((s) => s.entities);
  const targets = entities.filter((e) => e.canShare);
  const [chosen, setChosen] = useState<string>('');
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<{ ok: boolean; words: string } | null>(null);
  if (!active || targets.length === 0 || doc.problem) return null;
  const target = targets.find((t) => t.profileId === chosen) ?? targets[0]!;
  const share = async (): Promise<void> => {
    setBusy(true);
    setSaid(null);
    try {
      const shared = await call('team.shareEvidence', { lockerId: doc.id, profileId: target.profileId });
      setSaid({
        ok: true,
        words: shared.pending
          ? `Shared with ${target.legalEntityName}'s team when the team server is back (waiting).`
          : `Shared with ${target.legalEntityName}'s team.`,
      });
      void useShared.getState().load();
    } catch (err) {
      setSaid({ ok: false, words: errorMessage(err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="locker__share">
      {targets.length > 1 && (
        <Select
          label="Team"
          options={targets.map((t) => ({ value: t.profileId, label: t.legalEntityName }))}
          value={target.profileId}
          onChange={setChosen}
        />
      )}
      <Button size="sm" isPending={busy} onPress={() => void share()}>
        Share with {target.legalEntityName}'s team
      </Button>
      {said && (
        <p role={said.ok ? 'status' : 'alert'} className={said.ok ? 'muted' : 'field-error'}>
          {said.words}
        </p>
      )}
    </div>
  );
}

/** Inside the answer composer: the team's shared documents of the RFI's legal entity. */
export function SharedPicker({
  rfiId,
  profileId,
  questionId,
  disabled,
  onAttached,
  onProblem,
}: {
  rfiId: string;
  profileId: string;
  questionId: string;
  disabled: boolean;
  onAttached(file: StagedFileView): void;
  onProblem(message: string): void;
}) {
  useSubscription(teamSubscription);
  useSubscription(sharedEvidenceSubscription);
  const active = useTeam((s) => teamActive(s.status));
  const entities = useShared((s) => s.entities);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  if (!active || entities.length === 0) return null;
  const mine = entities.filter((e) => e.profileId === profileId);
  const docs = mine.flatMap((e) => e.documents.filter((d) => !d.pending));
  const listId = `shared-offer-${questionId}`;
  const use = async (d: SharedDocumentView): Promise<void> => {
    setBusy(d.id);
    try {
      onAttached(
        await call('team.attachEvidence', {
          documentId: d.id,
          rfiId,
          questionId,
          profileId,
        }),
      );
      setOpen(false);
    } catch (err) {
      onProblem(errorMessage(err));
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className="locker-picker">
      <Button
        size="sm"
        isDisabled={disabled}
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        onPress={() => setOpen(!open)}
      >
        {open ? 'Hide the team’s documents' : 'Use from the team’s locker…'}
      </Button>
      {open && (
        <div id={listId} className="locker-picker__list">
          {docs.length === 0 ? (
            <p className="muted">Nothing is shared with the team for this legal entity yet.</p>
          ) : (
            <ul aria-label="Documents shared with the team">
              {docs.map((d) => (
                <li key={d.id}>
                  <Button
                    size="sm"
                    isDisabled={disabled}
                    isPending={busy === d.id}
                    onPress={() => void use(d)}
                    aria-label={`Use ${sharedDocumentTitle(d)} (${d.fileName}), shared by ${d.addedBy.name}`}
                  >
                    Use {sharedDocumentTitle(d)} · {d.fileName}
                  </Button>{' '}
                  <Badge tone={sharedExpiryWords(d.expiresOn).tone}>
                    {sharedExpiryWords(d.expiresOn).words}
                  </Badge>{' '}
                  <span className="muted">shared by {d.addedBy.isYou ? 'you' : d.addedBy.name}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

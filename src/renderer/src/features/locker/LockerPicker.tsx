import { useState } from 'react';
import { DOCUMENT_TYPE_LABELS } from '../../../../shared/catalogue';
import type { DocumentType } from '../../../../shared/catalogue';
import type { LockerDocumentView } from '../../../../shared/ipc/channels/locker';
import type { StagedFileView } from '../../../../shared/ipc/channels/rfi-answers';
import { Button } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import { ExpiryBadge } from './LockerScreen';

export interface LockerPickerProps {
  rfiId: string;
  /** The profile that owns the RFI: the copy is staged for its answer. */
  profileId: string;
  questionId: string;
  questionType: string;
  disabled: boolean;
  /** A locker document was staged for this answer (main copied its exact bytes). */
  onAttached(file: StagedFileView): void;
  onProblem(message: string): void;
}

/**
 * Inside the answer composer: the locker's documents, those whose type fits the question first,
 * expired or soon-expiring ones marked. Choosing one stages its exact bytes for this answer; the
 * outbox uploads them with a new upload URL like any other file.
 */
export function LockerPicker({
  rfiId,
  profileId,
  questionId,
  questionType,
  disabled,
  onAttached,
  onProblem,
}: LockerPickerProps) {
  const [open, setOpen] = useState(false);
  const [offer, setOffer] = useState<{ fitting: LockerDocumentView[]; others: LockerDocumentView[] } | null>(
    null,
  );
  const [busy, setBusy] = useState<string | null>(null);
  const listId = `locker-offer-${questionId}`;

  const toggle = async (): Promise<void> => {
    if (open) {
      setOpen(false);
      return;
    }
    try {
      setOffer(await call('locker.forQuestion', { questionType }));
      setOpen(true);
    } catch (err) {
      onProblem(errorMessage(err));
    }
  };

  const use = async (doc: LockerDocumentView): Promise<void> => {
    setBusy(doc.id);
    try {
      onAttached(await call('locker.attach', { id: doc.id, rfiId, questionId, profileId }));
      setOpen(false);
    } catch (err) {
      onProblem(errorMessage(err));
    } finally {
      setBusy(null);
    }
  };

  const item = (doc: LockerDocumentView) => {
    const label = DOCUMENT_TYPE_LABELS[doc.documentType as DocumentType] ?? doc.documentType;
    return (
      <li key={doc.id}>
        <Button
          size="sm"
          isDisabled={disabled || doc.problem !== null}
          isPending={busy === doc.id}
          onPress={() => void use(doc)}
          aria-label={`Use ${label} of ${doc.holder.name} (${doc.current.name})`}
        >
          Use {label} · {doc.holder.name} · {doc.current.name}
        </Button>{' '}
        <ExpiryBadge doc={doc} />
        {doc.problem && <span className="muted"> {doc.problem}</span>}
      </li>
    );
  };

  return (
    <div className="locker-picker">
      <Button
        size="sm"
        isDisabled={disabled}
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        onPress={() => void toggle()}
      >
        {open ? 'Hide the locker' : 'Use from the locker…'}
      </Button>
      {open && offer && (
        <div id={listId} className="locker-picker__list">
          {offer.fitting.length + offer.others.length === 0 ? (
            <p className="muted">
              The locker is empty. Add documents under <a href="#/locker">Evidence locker</a>.
            </p>
          ) : (
            <>
              {offer.fitting.length > 0 && (
                <>
                  <p className="muted">Fitting this question</p>
                  <ul aria-label="Fitting documents from the locker">{offer.fitting.map(item)}</ul>
                </>
              )}
              {offer.others.length > 0 && (
                <>
                  <p className="muted">Other documents</p>
                  <ul aria-label="Other documents from the locker">{offer.others.map(item)}</ul>
                </>
              )}
            </>
          )}
        </div>
      )}
    </div>
  );
}

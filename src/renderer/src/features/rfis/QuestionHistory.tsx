import { Bot, FileText, Landmark, UserRound } from 'lucide-react';
import type { LucideIcon } from 'lucide-react';
import type { RfiDetailView } from '../../../../shared/ipc/channels/rfis';
import { documentTypeWords, plural, roleWords } from '../../../../shared/words';
import { CopyableId, RelativeTime } from '../../components/ui';

type Question = RfiDetailView['rfi']['questions'][number];
type Response = Question['responses'][number];
export type KnownDocuments = ReadonlyMap<string, { name: string; documentType: string }>;

function responseContent(q: Question, r: Response): { text: string; documentIds: string[] } {
  const c = r.response[q.question_type] ?? Object.values(r.response)[0];
  return { text: c?.response_text ?? '', documentIds: c?.document_ids ?? [] };
}

const ICONS: Record<string, LucideIcon> = { customer: UserRound, staff: Landmark, system: Bot };

/** Who wrote a response, by name: the entity we answer for ("Northgate Metals Inc (you)"), the bank. */
export function responderWords(type: string, ownerName: string): string {
  if (type === 'customer') return ownerName ? `${ownerName} (you)` : 'You (the customer)';
  return roleWords(type);
}

/**
 * The documents of one response by file name and type; a document this workstation did not
 * upload (the bank keeps no name) says so in words, its id secondary and copyable.
 */
function ResponseDocuments({ ids, known }: { ids: string[]; known: KnownDocuments }) {
  return (
    <ul className="rfi-history__docs" aria-label={plural(ids.length, 'document')}>
      {ids.map((d) => {
        const k = known.get(d);
        return (
          <li key={d} className="rfi-history__doc" data-testid="history-document">
            <FileText size={14} aria-hidden="true" />
            {k ? (
              <>
                <span className="rfi-history__doc-name" title={`Document id ${d}`}>
                  {k.name}
                </span>
                <span className="muted"> · {documentTypeWords(k.documentType)}</span>
              </>
            ) : (
              <>
                <span className="rfi-history__doc-name">A document not sent from this computer</span>{' '}
                <CopyableId id={d} kind="document id" />
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** One question's responses, oldest first: who (by name), when, what they wrote and sent. */
export function QuestionHistory({
  question,
  ownerName,
  known,
  now,
}: {
  question: Question;
  ownerName: string;
  known: KnownDocuments;
  now: number;
}) {
  if (question.responses.length === 0) return <p className="muted">No responses yet.</p>;
  return (
    <ol className="rfi-history" data-testid="question-history">
      {question.responses.map((r) => {
        const c = responseContent(question, r);
        const Icon = ICONS[r.responder_type] ?? Bot;
        return (
          <li key={r.id} className={`rfi-history__item rfi-history__item--${r.responder_type}`}>
            <span className="rfi-history__who" data-testid="history-who">
              <Icon size={14} aria-hidden="true" className="rfi-history__icon" />
              {responderWords(r.responder_type, ownerName)}
            </span>{' '}
            <RelativeTime value={r.created_at} now={now} className="muted" />
            {c.text && <p className="rfi-history__text">{c.text}</p>}
            {c.documentIds.length > 0 && <ResponseDocuments ids={c.documentIds} known={known} />}
          </li>
        );
      })}
    </ol>
  );
}

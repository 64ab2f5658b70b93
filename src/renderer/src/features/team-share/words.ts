import { dateWords, dayWords, documentTypeWords } from '../../../../shared/words';
import type { SharedDocumentView } from '../../../../shared/ipc/channels/team-share';

/** "Passport of Anna Meyer (person)". */
export function sharedDocumentTitle(d: Pick<SharedDocumentView, 'documentType' | 'holder'>): string {
  return `${documentTypeWords(d.documentType)} of ${d.holder.name}`;
}

/** Expiry in words, by calendar day: "Valid until 31 Mar 2027", "Expired on …", "No expiry". */
export function sharedExpiryWords(
  expiresOn: string | null,
  today = new Date().toISOString().slice(0, 10),
): {
  words: string;
  tone: 'ok' | 'warn' | 'bad' | 'neutral';
} {
  if (!expiresOn) return { words: 'No expiry', tone: 'neutral' };
  if (expiresOn < today) return { words: `Expired on ${dayWords(expiresOn)}`, tone: 'bad' };
  const days = Math.round(
    (Date.parse(`${expiresOn}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000,
  );
  if (days <= 30)
    return {
      words: days === 0 ? 'Expires today' : `Expires in ${days} day${days === 1 ? '' : 's'}`,
      tone: 'warn',
    };
  return { words: `Valid until ${dayWords(expiresOn)}`, tone: 'ok' };
}

/** "Maria Keller on 27 Nov 2026, 14:02" ("you" for oneself). */
export function byWhomWords(who: { name: string; isYou: boolean }, at: string): string {
  return `${who.isYou ? 'you' : who.name} on ${dateWords(at)}`;
}

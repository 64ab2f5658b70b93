/**
 * The incoming transfers this workstation knows, for the Returns screen to start from: the ones
 * looked up here (with their sender and amount) and the ones an RFI is about (their sender and
 * amount as main read them through the RFI's owning profile), one row per transaction, newest
 * first. While main is still reading a transfer's sender the row says so (`reading`); only a
 * transfer the bank does not name is labelled by its RFI. Pure: the screen gathers the lists.
 */
import type { RecentTransfer } from '../../../../shared/ipc/channels/returns';
import type { RfiSummaryView } from '../../../../shared/ipc/channels/rfis';
import type { RelatedName } from '../../../../shared/words';

export interface KnownTransfer {
  transactionId: string;
  /** The sender: looked up here, or as main named it for the RFI's owning profile. */
  name: string | null;
  /** Main is reading the sender and amount now (the row says so instead of a stand-in label). */
  reading: boolean;
  /** What an RFI about it asks (its description), when there is one. */
  rfi: string | null;
  amount: string | null;
  currency: string | null;
  status: string | null;
  /** Where the app knows it from, in words. */
  source: string;
  /** When it was last seen here (looked up, or the RFI's last change). */
  at: string;
}

const INCOMING = /^txn_/;

export function knownTransfers(
  recent: readonly RecentTransfer[],
  rfis: readonly Pick<RfiSummaryView, 'type' | 'relatedId' | 'description' | 'updatedAt' | 'profileId'>[],
  /** Transactions known to be exchange orders (this workstation's quotes): not incoming transfers. */
  exchangeOrders: ReadonlySet<string> = new Set(),
  /** A transfer's sender and amount as main named it for the RFI's owning profile (rfis.related). */
  named: (profileId: string | undefined, transactionId: string) => RelatedName['transfer'] = () => undefined,
  /** Whether main is still naming the transfer for that profile (asked, or about to be, and not answered). */
  reading: (profileId: string, transactionId: string) => boolean = () => false,
): KnownTransfer[] {
  const out = new Map<string, KnownTransfer>();
  for (const r of recent) {
    out.set(r.transactionId, {
      transactionId: r.transactionId,
      name: r.debtorName,
      reading: false,
      rfi: null,
      amount: r.amount,
      currency: r.currency,
      status: r.status,
      source: 'Opened here',
      at: r.viewedAt,
    });
  }
  for (const q of rfis) {
    if (q.type !== 'transaction' || !INCOMING.test(q.relatedId) || exchangeOrders.has(q.relatedId)) continue;
    const known = out.get(q.relatedId);
    if (known) {
      known.rfi ??= q.description || null;
      if (Date.parse(q.updatedAt) > Date.parse(known.at)) known.at = q.updatedAt;
      known.source = 'Opened here · in an RFI';
    } else {
      const t = named(q.profileId, q.relatedId);
      out.set(q.relatedId, {
        transactionId: q.relatedId,
        name: t?.counterparty ?? null,
        // Without an owning profile nobody is asked: not being read.
        reading: !t && !!q.profileId && reading(q.profileId, q.relatedId),
        rfi: q.description || null,
        amount: t?.amount ?? null,
        currency: t?.currency ?? null,
        status: null,
        source: 'In an RFI',
        at: q.updatedAt,
      });
    }
  }
  return [...out.values()].sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
}

/** Case-insensitive search over the id, the sender, the RFI's words and the source. */
export function matchesTransfer(t: KnownTransfer, text: string): boolean {
  const q = text.trim().toLowerCase();
  if (!q) return true;
  return [t.transactionId, t.name ?? '', t.rfi ?? '', t.source].some((f) => f.toLowerCase().includes(q));
}

/**
 * Activity entries by name: the RFI by its subject, the profile by its name, who by the entity
 * and role the credential acts for. The raw operation, key and ids stay in the entry's detail
 * (copyable); the sentence an analyst scans reads in names. Pure: the screen passes what the
 * workstation knows (the queue's RFIs, the profiles, the watched entities).
 */

import type { AuditEntryView } from '../../../../shared/ipc/channels/audit';
import { activityKindOf, describeActivity } from '../../../../shared/activity';
import { isUnconfirmedWho, parseWho, roleWords } from '../../../../shared/words';

export interface ActivityNames {
  /** RFI id → its subject (description, else its type in words). */
  rfis: ReadonlyMap<string, string>;
  /** Profile id → the profile's name. */
  profiles: ReadonlyMap<string, string>;
  /** Profile id → the legal entity it acts for, by name. */
  entities: ReadonlyMap<string, string>;
}

export const noNames: ActivityNames = { rfis: new Map(), profiles: new Map(), entities: new Map() };

export { parseWho };

/**
 * Who made the write, in words: the entity the credential acts for and its role ("Northgate
 * Metals Inc · Administrator"); `detail` names the credential and the entity's id (secondary).
 */
export function whoWords(
  entry: Pick<AuditEntryView, 'who' | 'environmentId' | 'environmentName'>,
  names: ActivityNames,
): { name: string; detail: string | null; legalEntityId: string | null } {
  const who = parseWho(entry.who);
  const entity = names.entities.get(entry.environmentId) ?? null;
  if (!who) {
    const unknown = isUnconfirmedWho(entry.who);
    return {
      name: entity ?? (unknown ? `${entry.environmentName} (credential not checked yet)` : entry.who),
      detail: unknown ? null : entry.who,
      legalEntityId: null,
    };
  }
  return {
    name: `${entity ?? who.label} · ${roleWords(who.role)}`,
    detail: `Credential “${who.label}”`,
    legalEntityId: who.legalEntityId,
  };
}

/** The RFI an rfi.* entry is about (an upload's target is the document; its record names the RFI). */
function rfiOf(entry: Pick<AuditEntryView, 'operation' | 'target' | 'detail'>): string | null {
  if (entry.operation === 'rfi.upload') return /(?:^|; )RFI (\S+?);/.exec(entry.detail ?? '')?.[1] ?? null;
  return entry.target;
}

/**
 * The entry's sentence by name: "RFI answered — Source of funds for the March invoices". Where
 * the object has no name here, the sentence stops at what happened (its id is in the detail).
 */
export function activitySentence(entry: AuditEntryView, names: ActivityNames): string {
  const kind = activityKindOf(entry.operation);
  if (kind !== 'rfi' && kind !== 'access') return entry.summary;
  const head = describeActivity({ ...entry, target: null });
  if (kind === 'rfi') {
    const rfiId = rfiOf(entry);
    const subject = rfiId ? names.rfis.get(rfiId) : undefined;
    return subject ? `${head} — ${subject}` : head;
  }
  // Access: a profile by its name; a bank address is words already.
  const t = entry.target;
  if (!t) return head;
  if (/^https?:\/\//i.test(t)) return `${head} — ${t}`;
  const profile = names.profiles.get(t);
  return profile ? `${head} — ${profile}` : head;
}

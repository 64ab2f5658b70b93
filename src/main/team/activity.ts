/**
 * The team activity log, for the workstation: one legal entity's entries read from the team
 * server (read whole at each look, so a changed entry shows; the change feed's `activity` changes
 * say when to look again),
 * each named by its actor, and the server's hash chain checked here entry by entry with the same
 * hashing the server uses (`src/shared/team/activity-chain.ts`). A chain that does not hold is
 * said plainly, with the first entry where it breaks; the entries are still shown.
 */
import { createHash } from 'node:crypto';
import { GENESIS_HASH, verifyChainWith } from '../../shared/team/activity-chain';
import { ActivityPage, type ActivityEntry, type Change } from '../../shared/team/schemas';
import { TeamUnreachable, type TeamHttp } from './api';
import type { PersonView } from './notes';

export interface TeamActivityView {
  seq: number;
  at: string;
  actor: PersonView;
  action: string;
  /** What happened, in words ("Claimed the RFI", "Shared Passport (Anna Meyer)"). */
  words: string;
  object: { kind: string; id: string } | null;
  detail: Record<string, string>;
}

export interface ChainView {
  intact: boolean;
  /** The first entry where the chain does not hold. */
  brokenAt: number | null;
  words: string;
}

export interface TeamActivity {
  /**
   * The entity's entries, oldest first, optionally only those about one RFI (its claims, notes,
   * and the documents used for it are named by the RFI id in their detail).
   */
  entries(
    legalEntityId: string,
    rfiId?: string,
  ): Promise<{ entries: TeamActivityView[]; chain: ChainView; offline: boolean }>;
  apply(change: Change): void;
  clear(): void;
}

export interface TeamActivityDeps {
  http: TeamHttp;
  me(): string | null;
  nameOf(legalEntityId: string, subject: string): string;
  /** A document type's name ("Passport"). */
  documentTypeName(type: string): string;
  onChange(legalEntityId: string): void;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** What an approval or a send is about, in words ("the answer", "an exchange mandate"). */
function approvedThing(e: ActivityEntry, article = true): string {
  const kind = e.object?.kind;
  const noun = kind === 'return' ? 'return' : kind === 'exchange' ? 'exchange mandate' : 'answer';
  if (!article) return noun;
  return kind === 'exchange' ? `an ${noun}` : `the ${noun}`;
}

/** An entry in words, as the Activity screen, the CSV and the case file say it. */
export function teamActivityWords(
  e: ActivityEntry,
  nameOf: (s: string) => string,
  typeName: (t: string) => string,
): string {
  const d = e.detail;
  switch (e.action) {
    case 'rfi.claimed':
      return 'Claimed the RFI';
    case 'rfi.released':
      return 'Released the RFI';
    case 'rfi.reassigned':
      return `Handed the RFI ${d.from ? `from ${nameOf(d.from)} ` : ''}to ${d.to ? nameOf(d.to) : 'someone'}`;
    case 'note.added':
      return e.object?.kind === 'rfi' ? 'Wrote a note on the RFI' : 'Wrote a note';
    case 'evidence.added':
      return `Shared a ${d.documentType ? typeName(d.documentType) : 'document'} with the team`;
    case 'evidence.replaced':
      return `Replaced a shared ${d.documentType ? typeName(d.documentType) : 'document'}`;
    case 'evidence.used':
      return `Used a shared ${d.documentType ? typeName(d.documentType) : 'document'} in an answer`;
    case 'evidence.revoked':
      return `Withdrew a shared document${d.reason ? `: ${d.reason}` : ''}`;
    case 'approval.requested':
      return `Asked a checker to approve ${approvedThing(e)}`;
    case 'approval.approved':
      return `Approved ${approvedThing(e)}${d.maker ? ` made by ${nameOf(d.maker)}` : ''}`;
    case 'approval.rejected':
      return `Rejected ${approvedThing(e)}${d.reason ? `: ${d.reason}` : ''}`;
    case 'send.sent':
      return `Sent the approved ${approvedThing(e, false)} to the bank`;
    case 'send.failed':
    case 'send.conflict':
      return `The approved ${approvedThing(e, false)} was not sent${d.reason ? `: ${d.reason}` : ''}`;
    default: {
      const [what = e.action, verb = ''] = e.action.split('.');
      const object = what.replace(/_/g, ' ');
      return verb ? `${verb.charAt(0).toUpperCase()}${verb.slice(1).replace(/_/g, ' ')} (${object})` : object;
    }
  }
}

export function createTeamActivity(deps: TeamActivityDeps): TeamActivity {
  const held = new Map<string, ActivityEntry[]>();

  /**
   * Reads the entity's whole log again each time: a chain is only checked if every entry is the
   * server's current one (an entry changed after it was first read must show as a break).
   */
  const fetchAll = async (legalEntityId: string): Promise<void> => {
    const list: ActivityEntry[] = [];
    let since = 0;
    for (;;) {
      const page = await deps.http.call(
        'GET',
        `/v1/entities/${encodeURIComponent(legalEntityId)}/activity?since=${since}&limit=1000`,
        ActivityPage,
      );
      list.push(...page.entries);
      if (page.next === null || page.entries.length === 0) break;
      since = page.next;
    }
    held.set(legalEntityId, list);
  };

  const view = (legalEntityId: string, e: ActivityEntry): TeamActivityView => ({
    seq: e.seq,
    at: e.at,
    actor: { subject: e.actor, name: deps.nameOf(legalEntityId, e.actor), isYou: e.actor === deps.me() },
    action: e.action,
    words: teamActivityWords(e, (s) => deps.nameOf(legalEntityId, s), deps.documentTypeName),
    object: e.object,
    detail: e.detail,
  });

  return {
    async entries(legalEntityId, rfiId) {
      let offline = false;
      try {
        await fetchAll(legalEntityId);
      } catch (err) {
        if (!(err instanceof TeamUnreachable)) throw err;
        offline = true;
      }
      const all = held.get(legalEntityId) ?? [];
      const problem = verifyChainWith(sha256, all, GENESIS_HASH);
      const chain: ChainView = problem
        ? {
            intact: false,
            brokenAt: problem.seq,
            words: `The team server’s activity log is broken at entry ${problem.seq} (${
              problem.problem === 'link' ? 'it does not follow the entry before it' : 'its contents changed'
            }): entries from there on cannot be trusted.`,
          }
        : {
            intact: true,
            brokenAt: null,
            words: `The team server’s activity log checks out (${all.length} ${all.length === 1 ? 'entry' : 'entries'} chained).`,
          };
      const about = rfiId
        ? all.filter(
            (e) =>
              ((e.object?.kind === 'rfi' || e.object?.kind === 'rfi_answer') && e.object.id === rfiId) ||
              e.detail.rfiId === rfiId,
          )
        : all;
      return { entries: about.map((e) => view(legalEntityId, e)), chain, offline };
    },
    apply(change) {
      if (change.topic === 'activity') deps.onChange(change.legalEntityId);
    },
    clear() {
      held.clear();
    },
  };
}

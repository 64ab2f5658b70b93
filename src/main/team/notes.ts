/**
 * Internal notes on RFIs (the team's own words, never sent to the bank) and presence (who has the
 * RFI open now), for the workstation. Notes are read from the team server and kept current by the
 * change feed (`note`); a note written while the server is away waits in the share outbox and
 * shows as pending. Presence arrives as the stream's `presence` events and the answers to this
 * workstation's own beats; the analyst never sees themself in it.
 */
import { randomUUID } from 'node:crypto';
import { NoteList, ObjectPresence, type Note } from '../../shared/team/notes';
import type { Change } from '../../shared/team/schemas';
import type { Logger } from '../infra/log';
import { TeamUnreachable, type TeamHttp } from './api';
import type { NoteJob, ShareOutbox } from './share-outbox';

export interface PersonView {
  subject: string;
  name: string;
  isYou: boolean;
}

export interface NoteView {
  id: string;
  author: PersonView;
  /** The server's time; for a pending note, when it was written here. */
  at: string;
  text: string;
  /** Written here, waiting for the team server. */
  pending: boolean;
}

export interface PresentView {
  subject: string;
  name: string;
  activity: 'viewing' | 'editing';
  since: string;
}

export interface TeamNotesDeps {
  http: TeamHttp;
  log: Logger;
  outbox: ShareOutbox;
  me(): string | null;
  nameOf(legalEntityId: string, subject: string): string;
  /** The notes or presence of an RFI changed. */
  onChange(legalEntityId: string, topic: 'note' | 'presence', rfiId: string): void;
}

export interface TeamNotes {
  /** The RFI's notes, oldest first (the last ones read when the server cannot be reached). */
  list(legalEntityId: string, rfiId: string): Promise<{ notes: NoteView[]; offline: boolean }>;
  add(legalEntityId: string, rfiId: string, text: string): Promise<NoteView>;
  /** Who else has the RFI open now (as last told). */
  present(legalEntityId: string, rfiId: string): PresentView[];
  /** A beat (viewing or editing), or `gone` when the analyst leaves the RFI. */
  beat(
    legalEntityId: string,
    rfiId: string,
    activity: 'viewing' | 'editing' | 'gone',
  ): Promise<PresentView[]>;
  apply(change: Change): void;
  applyPresence(p: unknown): void;
  /** A queued note went through or was refused. */
  settled(job: NoteJob): void;
  send(job: NoteJob): Promise<void>;
  clear(): void;
}

const key = (legalEntityId: string, rfiId: string): string => `${legalEntityId}\n${rfiId}`;
const path = (legalEntityId: string): string => `/v1/entities/${encodeURIComponent(legalEntityId)}`;

export function createTeamNotes(deps: TeamNotesDeps): TeamNotes {
  const notes = new Map<string, Map<string, Note>>();
  const presence = new Map<string, ObjectPresence>();

  const person = (legalEntityId: string, subject: string, name?: string | null): PersonView => ({
    subject,
    name: name ?? deps.nameOf(legalEntityId, subject),
    isYou: subject === deps.me(),
  });
  const remember = (n: Note): void => {
    const k = key(n.legalEntityId, n.object.id);
    const m = notes.get(k) ?? new Map<string, Note>();
    m.set(n.id, n);
    notes.set(k, m);
  };
  const views = (legalEntityId: string, rfiId: string): NoteView[] => {
    const stored = [...(notes.get(key(legalEntityId, rfiId))?.values() ?? [])].map((n): NoteView => ({
      id: n.id,
      author: person(legalEntityId, n.author, n.authorName),
      at: n.at,
      text: n.text,
      pending: false,
    }));
    const known = new Set(stored.map((n) => n.id));
    const waiting = deps.outbox
      .pending()
      .filter(
        (j): j is NoteJob =>
          j.what === 'note' && j.legalEntityId === legalEntityId && j.objectId === rfiId && !known.has(j.id),
      )
      .map((j): NoteView => ({
        id: j.id,
        author: person(legalEntityId, j.subject),
        at: j.createdAt,
        text: j.text,
        pending: true,
      }));
    return [...stored, ...waiting].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  };
  const presentOf = (legalEntityId: string, rfiId: string): PresentView[] =>
    (presence.get(key(legalEntityId, rfiId))?.present ?? [])
      .filter((p) => p.subject !== deps.me() && Date.parse(p.expiresAt) > Date.now() - 5_000)
      .map((p) => ({
        subject: p.subject,
        name: p.name ?? deps.nameOf(legalEntityId, p.subject),
        activity: p.activity,
        since: p.since,
      }));
  const setPresence = (p: ObjectPresence): void => {
    if (p.object.kind !== 'rfi') return;
    presence.set(key(p.legalEntityId, p.object.id), p);
    deps.onChange(p.legalEntityId, 'presence', p.object.id);
  };

  return {
    async list(legalEntityId, rfiId) {
      try {
        const page = await deps.http.call(
          'GET',
          `${path(legalEntityId)}/notes?kind=rfi&objectId=${encodeURIComponent(rfiId)}`,
          NoteList,
        );
        notes.set(key(legalEntityId, rfiId), new Map(page.notes.map((n) => [n.id, n])));
        return { notes: views(legalEntityId, rfiId), offline: false };
      } catch (err) {
        if (!(err instanceof TeamUnreachable)) throw err;
        return { notes: views(legalEntityId, rfiId), offline: true };
      }
    },
    async add(legalEntityId, rfiId, text) {
      const subject = deps.me();
      const now = new Date().toISOString();
      const job: NoteJob = {
        id: randomUUID(),
        createdAt: now,
        updatedAt: now,
        failures: 0,
        nextAttemptAt: null,
        what: 'note',
        legalEntityId,
        objectKind: 'rfi',
        objectId: rfiId,
        text,
        subject: subject ?? '',
      };
      await deps.outbox.submit(job);
      return (
        views(legalEntityId, rfiId).find((n) => n.id === job.id) ?? {
          id: job.id,
          author: person(legalEntityId, job.subject),
          at: now,
          text,
          pending: true,
        }
      );
    },
    async send(job) {
      const n = await deps.http.call(
        'POST',
        `${path(job.legalEntityId)}/notes`,
        NoteList.shape.notes.element,
        {
          id: job.id,
          object: { kind: job.objectKind, id: job.objectId },
          text: job.text,
        },
      );
      remember(n);
    },
    settled(job) {
      deps.onChange(job.legalEntityId, 'note', job.objectId);
    },
    present: presentOf,
    async beat(legalEntityId, rfiId, activity) {
      const object = { kind: 'rfi' as const, id: rfiId };
      try {
        const p =
          activity === 'gone'
            ? await deps.http.call('POST', `${path(legalEntityId)}/presence/leave`, ObjectPresence, {
                object,
              })
            : await deps.http.call('PUT', `${path(legalEntityId)}/presence`, ObjectPresence, {
                object,
                activity,
              });
        presence.set(key(legalEntityId, rfiId), p);
      } catch (err) {
        // Presence is a courtesy: an absent team server leaves the last known list.
        if (!(err instanceof TeamUnreachable)) throw err;
      }
      return presentOf(legalEntityId, rfiId);
    },
    apply(change) {
      if (change.topic !== 'note') return;
      const n = NoteList.shape.notes.element.safeParse(change.data);
      if (!n.success || n.data.object.kind !== 'rfi') return;
      remember(n.data);
      deps.onChange(n.data.legalEntityId, 'note', n.data.object.id);
    },
    applyPresence(raw) {
      const p = ObjectPresence.safeParse(raw);
      if (p.success) setPresence(p.data);
      else deps.log.warn('team: a presence event of unexpected shape was skipped');
    },
    clear() {
      notes.clear();
      presence.clear();
    },
  };
}

/**
 * The push side of the change feed. One PostgreSQL connection per server process LISTENs on
 * `team_changes` (the database NOTIFYs at each commit that adds a change); each subscriber (an
 * open event stream) is then pumped from the `changes` table after the last number it was sent,
 * so a notification is only a wake-up: nothing is lost if one is missed, and after the listening
 * connection comes back (PostgreSQL restarted) every subscriber is pumped once to catch up. A
 * stream catches up on its own when it opens; after that the streams of a process share one read
 * per wake-up.
 * The same connection LISTENs on `team_presence`: a beat at an object is read once per process
 * and pushed to the subscribers of its entity (`presence.ts`).
 */
import pg from 'pg';
import type { ObjectPresence, TeamObjectRef } from '../shared/team/notes';
import type { Change } from '../shared/team/schemas';
import type { TeamDb } from './db';
import { PRESENCE_CHANNEL, readPresence } from './presence';

export interface Subscriber {
  entities: ReadonlySet<string>;
  /** The last change number this subscriber was sent. */
  last: number;
  send(changes: Change[]): void;
  /** Who is at an object of one of its entities now (after any beat or leave there). */
  presence?(p: ObjectPresence): void;
}

export interface ChangeHub {
  subscribe(s: Subscriber): () => void;
  /** Sends a subscriber what it missed (also called on subscribe). */
  pump(s: Subscriber): Promise<void>;
  close(): Promise<void>;
}

export async function readChanges(
  db: TeamDb,
  entities: readonly string[],
  since: number,
  limit: number,
): Promise<Change[]> {
  if (entities.length === 0) return [];
  const rows = await db
    .selectFrom('changes')
    .selectAll()
    .where('legal_entity_id', 'in', entities)
    .where('seq', '>', since)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    seq: r.seq,
    at: r.at.toISOString(),
    legalEntityId: r.legal_entity_id,
    topic: r.topic as Change['topic'],
    objectId: r.object_id,
    data: r.data,
  }));
}

export function createChangeHub(
  db: TeamDb,
  databaseUrl: string,
  onError: (err: unknown) => void = () => {},
): ChangeHub {
  const subscribers = new Set<Subscriber>();
  const pumping = new Map<Subscriber, Promise<void>>();
  const again = new Set<Subscriber>();
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  /**
   * Hands a subscriber the changes of `batch` it has not had. `batch` holds every change (of the
   * subscriber's entities at least) after `from`, so it covers a subscriber whose last number is
   * at or after `from`; one further behind is left for its own catch-up (answers false).
   */
  const deliver = (s: Subscriber, batch: Change[], from: number): boolean => {
    if (!subscribers.has(s)) return true;
    if (s.last < from) return false;
    const fresh = batch.filter((c) => c.seq > s.last && s.entities.has(c.legalEntityId));
    s.last = Math.max(s.last, batch.at(-1)?.seq ?? s.last);
    if (fresh.length > 0) s.send(fresh);
    return true;
  };

  /** One subscriber's catch-up from its own number (when it opens, or fell behind). */
  const pump = (s: Subscriber): Promise<void> => {
    const running = pumping.get(s);
    if (running) {
      again.add(s);
      return running;
    }
    const run = (async () => {
      do {
        again.delete(s);
        for (;;) {
          const from = s.last;
          const batch = await readChanges(db, [...s.entities], from, 500);
          if (batch.length === 0 || !subscribers.has(s)) break;
          deliver(s, batch, from);
        }
      } while (again.has(s) && subscribers.has(s));
    })()
      .catch(onError)
      .finally(() => {
        pumping.delete(s);
        // A wake-up that came while this stream caught up on its own passed it by: read once more.
        if (subscribers.has(s)) pumpShared();
      });
    pumping.set(s, run);
    return run;
  };

  /**
   * After a NOTIFY: the new changes are read once for every subscriber of this process that is
   * not catching up on its own (from the oldest number among them) and handed to each, so fifty
   * open streams cost one query per commit, not fifty. Notifications meanwhile coalesce.
   */
  let sharedRun: Promise<void> | null = null;
  let sharedAgain = false;
  const pumpShared = (): void => {
    if (sharedRun) {
      sharedAgain = true;
      return;
    }
    sharedRun = (async () => {
      do {
        sharedAgain = false;
        for (;;) {
          const current = [...subscribers].filter((s) => !pumping.has(s));
          if (current.length === 0) break;
          const from = Math.min(...current.map((s) => s.last));
          const entities = new Set(current.flatMap((s) => [...s.entities]));
          const batch = await readChanges(db, [...entities], from, 500);
          if (batch.length === 0) break;
          for (const s of current) if (!deliver(s, batch, from)) void pump(s);
        }
      } while (sharedAgain);
    })()
      .catch(onError)
      .finally(() => {
        sharedRun = null;
      });
  };

  const presenceReads = new Map<string, Promise<void>>();
  const presenceAgain = new Set<string>();
  /** Reads an object's presence once for every subscriber of its entity; beats meanwhile coalesce. */
  const announcePresence = (legalEntityId: string, object: TeamObjectRef): void => {
    const key = JSON.stringify([legalEntityId, object.kind, object.id]);
    if (presenceReads.has(key)) {
      presenceAgain.add(key);
      return;
    }
    const run = (async () => {
      do {
        presenceAgain.delete(key);
        const targets = [...subscribers].filter((s) => s.presence && s.entities.has(legalEntityId));
        if (targets.length === 0) return;
        const now = await readPresence(db, legalEntityId, object);
        for (const s of targets) if (subscribers.has(s)) s.presence?.(now);
      } while (presenceAgain.has(key));
    })()
      .catch(onError)
      .finally(() => presenceReads.delete(key));
    presenceReads.set(key, run);
  };

  const onPresence = (payload: string | undefined): void => {
    try {
      const p = JSON.parse(payload ?? '') as { legalEntityId?: unknown; kind?: unknown; id?: unknown };
      if (
        typeof p.legalEntityId === 'string' &&
        (p.kind === 'rfi' || p.kind === 'return' || p.kind === 'exchange') &&
        typeof p.id === 'string'
      )
        announcePresence(p.legalEntityId, { kind: p.kind, id: p.id });
    } catch {
      // Not ours: ignore.
    }
  };

  const listen = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: databaseUrl, application_name: 'treasury-team-listener' });
    const lost = (err?: unknown) => {
      if (err) onError(err);
      if (client !== c) return;
      client = null;
      c.removeAllListeners();
      // The dead connection may still report its end: heard and dropped, never an uncaught error.
      c.on('error', () => {});
      void c.end().catch(() => {});
      if (!closed) retry = setTimeout(() => void listen().catch(onError), 500);
    };
    c.on('error', lost);
    c.on('end', () => lost());
    c.on('notification', (n) => {
      if (n.channel === PRESENCE_CHANNEL) return onPresence(n.payload);
      let entity: string | undefined;
      try {
        entity = (JSON.parse(n.payload ?? '{}') as { legalEntityId?: string }).legalEntityId;
      } catch {
        entity = undefined;
      }
      if ([...subscribers].some((s) => entity === undefined || s.entities.has(entity))) pumpShared();
    });
    client = c;
    try {
      await c.connect();
      await c.query('LISTEN team_changes');
      await c.query(`LISTEN ${PRESENCE_CHANNEL}`);
    } catch (err) {
      lost(err);
      return;
    }
    // Whatever committed while nobody listened.
    pumpShared();
  };

  const started = listen().catch(onError);

  return {
    subscribe(s) {
      subscribers.add(s);
      void started.then(() => pump(s));
      return () => {
        subscribers.delete(s);
      };
    },
    pump,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      subscribers.clear();
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners();
        c.on('error', () => {});
        await c.end().catch(() => {});
      }
      await Promise.allSettled([...pumping.values(), ...presenceReads.values(), sharedRun]);
    },
  };
}

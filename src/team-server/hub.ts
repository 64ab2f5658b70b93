/**
 * The push side of the change feed. One PostgreSQL connection per server process LISTENs on
 * `team_changes` (the database NOTIFYs at each commit that adds a change); each subscriber (an
 * open event stream) is then pumped from the `changes` table after the last number it was sent,
 * so a notification is only a wake-up: nothing is lost if one is missed, and after the listening
 * connection comes back (PostgreSQL restarted) every subscriber is pumped once to catch up.
 */
import pg from 'pg';
import type { Change } from '../shared/team/schemas';
import type { TeamDb } from './db';

export interface Subscriber {
  entities: ReadonlySet<string>;
  /** The last change number this subscriber was sent. */
  last: number;
  send(changes: Change[]): void;
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
          const batch = await readChanges(db, [...s.entities], s.last, 500);
          if (batch.length === 0 || !subscribers.has(s)) break;
          s.last = batch.at(-1)?.seq ?? s.last;
          s.send(batch);
        }
      } while (again.has(s) && subscribers.has(s));
    })()
      .catch(onError)
      .finally(() => pumping.delete(s));
    pumping.set(s, run);
    return run;
  };

  const listen = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: databaseUrl, application_name: 'treasury-team-listener' });
    const lost = (err?: unknown) => {
      if (err) onError(err);
      if (client !== c) return;
      client = null;
      c.removeAllListeners();
      void c.end().catch(() => {});
      if (!closed) retry = setTimeout(() => void listen().catch(onError), 500);
    };
    c.on('error', lost);
    c.on('end', () => lost());
    c.on('notification', (n) => {
      let entity: string | undefined;
      try {
        entity = (JSON.parse(n.payload ?? '{}') as { legalEntityId?: string }).legalEntityId;
      } catch {
        entity = undefined;
      }
      for (const s of subscribers) if (entity === undefined || s.entities.has(entity)) void pump(s);
    });
    client = c;
    try {
      await c.connect();
      await c.query('LISTEN team_changes');
    } catch (err) {
      lost(err);
      return;
    }
    // Whatever committed while nobody listened.
    for (const s of subscribers) void pump(s);
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
      await Promise.allSettled([...pumping.values()]);
    },
  };
}

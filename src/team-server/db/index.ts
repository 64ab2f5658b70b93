/**
 * The team database: one `pg` pool, kysely over it, and the migrations (kysely's Migrator with
 * the migrations compiled in, so a server never reads SQL files from disk at run time).
 */
import { Kysely, Migrator, PostgresDialect, type Migration, type MigrationProvider } from 'kysely';
import pg from 'pg';
import * as m0001 from './migrations/0001-team-schema';
import * as m0002 from './migrations/0002-evidence-locker';
import * as m0003 from './migrations/0003-notes-presence';
import * as m0004 from './migrations/0004-gapless-feed-and-request-ids';
import type { TeamDatabase } from './schema';

export type TeamDb = Kysely<TeamDatabase>;

const migrations: Record<string, Migration> = {
  '0001-team-schema': m0001,
  '0002-evidence-locker': m0002,
  '0003-notes-presence': m0003,
  '0004-gapless-feed-and-request-ids': m0004,
};
const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) };

/**
 * int8 (counts, sequence numbers) as JS numbers: they stay far below 2^53. date as its text
 * (`YYYY-MM-DD`): a calendar date, never moved through a time zone into a JS Date.
 */
const INT8 = 20;
const DATE = 1082;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8
      ? (v: string) => Number(v)
      : oid === DATE
        ? (v: string) => v
        : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export function createPool(databaseUrl: string, max = 10): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    types,
    application_name: 'treasury-team-server',
  });
  // An idle connection lost (PostgreSQL restarted or failed over) is dropped by the pool and the
  // next query opens a new one; without a listener the error would end the process.
  pool.on('error', () => {});
  // A connection lost while checked out between two statements (inside a transaction) reports it
  // on the client, where the pool listens only while it is idle: without this listener PostgreSQL
  // restarting would end the process. The statement after it fails, the request answers 500, and
  // the pool discards the client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

export function createDb(pool: pg.Pool): TeamDb {
  return new Kysely<TeamDatabase>({ dialect: new PostgresDialect({ pool }) });
}

/** Brings the schema to the newest migration; throws with the failing migration's error. */
export async function migrateToLatest(db: TeamDb): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'team_migrations',
    migrationLockTableName: 'team_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * A throwaway PostgreSQL cluster for development and tests, from the distribution's own binaries
 * (Debian: /usr/lib/postgresql/<version>/bin, or TEAM_PG_BIN): `initdb` in a temporary folder,
 * `pg_ctl start` on a free loopback port with the socket in that folder, one database, then
 * `pg_ctl stop` and the folder removed. PostgreSQL refuses to run as root, so when started as
 * root it runs the binaries as the `postgres` user on a folder that user owns.
 */
import { execFile } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PostgresCluster {
  /** postgres://… for the cluster's database (password authentication over loopback TCP). */
  url: string;
  port: number;
  dir: string;
  /** Stops the server (fast shutdown) and starts it again on the same port: data kept. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export function findPostgresBin(): string {
  const fromEnv = process.env['TEAM_PG_BIN'];
  if (fromEnv) return fromEnv;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^[0-9]+$/.test(v) && existsSync(path.join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0])
    throw new Error('PostgreSQL binaries not found: install Debian’s postgresql package or set TEAM_PG_BIN');
  return path.join(root, versions[0], 'bin');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** The `postgres` user's ids when started as root (PostgreSQL refuses to run as root), else null. */
function postgresUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const f = line.split(':');
    if (f[0] === 'postgres' && f[2] && f[3]) return { uid: Number(f[2]), gid: Number(f[3]) };
  }
  throw new Error('started as root, but there is no `postgres` user to run PostgreSQL as');
}

export async function startPostgresCluster(opts: { database?: string } = {}): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  const owner = postgresUser();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'team-pg-'));
  const data = path.join(dir, 'data');
  const password = `dev-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const pwfile = path.join(dir, 'pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chownSync(pwfile, owner.uid, owner.gid);
  }
  const as = (cmd: string, args: string[]) =>
    owner
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args])
      : run(path.join(bin, cmd), args);
  await as('initdb', [
    '-D',
    data,
    '-U',
    'team',
    '-A',
    'scram-sha-256',
    `--pwfile=${pwfile}`,
    '-E',
    'UTF8',
    '--no-sync',
    '--locale=C',
  ]);
  rmSync(pwfile);
  const port = await freePort();
  const start = () =>
    as('pg_ctl', [
      '-D',
      data,
      '-w',
      '-t',
      '30',
      '-l',
      path.join(dir, 'postgres.log'),
      '-o',
      `-h 127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`,
      'start',
    ]);
  const stop = () => as('pg_ctl', ['-D', data, '-w', '-m', 'fast', 'stop']);
  await start();
  const database = opts.database ?? 'team';
  const base = `postgres://team:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  await run(path.join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'team', database], {
    env: { ...process.env, PGPASSWORD: password },
  });
  let stopped = false;
  return {
    url: `${base}/${database}`,
    port,
    dir,
    async restart() {
      await stop();
      await start();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

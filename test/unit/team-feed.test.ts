import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createChangeFeed } from '../../src/main/team/feed';
import { createTeamHttp, TeamUnreachable, type TeamHttp } from '../../src/main/team/api';
import { z } from 'zod';
import { createLogger, memorySink } from '../../src/main/infra/log';

/**
 * The change feed against a real HTTP server that sends a change, then keep-alive comments for as
 * long as the connection stays open (as the team server does).
 */
let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

async function keepAliveServer(): Promise<{ url: string; open: IncomingMessage[]; closed: () => number }> {
  const open: IncomingMessage[] = [];
  let closed = 0;
  server = createServer((req, res) => {
    open.push(req);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    const change = {
      seq: 1,
      at: '2026-11-27T10:00:00Z',
      legalEntityId: 'le_1',
      topic: 'assignment',
      objectId: 'rfi_1',
      data: {},
    };
    res.write(`id: 1\nevent: change\ndata: ${JSON.stringify(change)}\n\n`);
    const beat = setInterval(() => res.write(': keep-alive\n\n'), 20);
    res.on('close', () => {
      clearInterval(beat);
      closed += 1;
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, open, closed: () => closed };
}

describe('the team change feed', () => {
  it('stop() closes the stream even when the fetch no longer follows its abort signal', async () => {
    const srv = await keepAliveServer();
    // Node's fetch can lose the link from the caller's signal to the request once the Request is
    // garbage collected (nodejs/node#55428): this transport behaves as that one then does, and
    // never aborts. Stopping must still end the stream and the connection.
    const http: TeamHttp = {
      call: () => Promise.reject(new Error('not used')),
      bytes: () => Promise.reject(new Error('not used')),
      open: (path, headers) => fetch(new URL(path, srv.url), { headers }),
    };
    const states: string[] = [];
    const applied: number[] = [];
    const feed = createChangeFeed({
      http,
      lastSeq: () => 0,
      apply: (c) => void applied.push(c.seq),
      onState: (s) => states.push(s.state),
      log: createLogger(memorySink()),
    });
    feed.start();
    await expect.poll(() => states).toContain('connected');
    await expect.poll(() => applied).toEqual([1]);
    // Keep-alives are flowing: the stream is open.
    await new Promise((r) => setTimeout(r, 60));
    expect(srv.closed()).toBe(0);

    const stopped = feed.stop().then(() => 'stopped');
    const late = new Promise((r) => setTimeout(() => r('still running after 2 s'), 2_000));
    expect(await Promise.race([stopped, late])).toBe('stopped');
    // The server saw the connection go, and no new one was opened.
    await expect.poll(() => srv.closed()).toBe(1);
    expect(srv.open).toHaveLength(1);
  });
});

describe('a team call', () => {
  it('ends with "did not answer in time" when the server sends headers and then nothing', async () => {
    let requests = 0;
    server = createServer((_req, res) => {
      requests += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"ok":');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const http = createTeamHttp({
      baseUrl: () => `http://127.0.0.1:${port}`,
      accessToken: () => Promise.resolve('t'),
      timeoutMs: 300,
    });
    const started = Date.now();
    const err = await http.call('GET', '/v1/me', z.unknown()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TeamUnreachable);
    expect((err as Error).message).toBe('The team server did not answer in time.');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(requests).toBe(1);
  });
});

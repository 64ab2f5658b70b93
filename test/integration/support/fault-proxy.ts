/**
 * A loopback HTTP proxy in front of the sandbox that can answer instead of it (a 500, a
 * malformed body, a dropped connection) or rewrite its JSON answers: the failures a real bank
 * can produce but the sandbox does not, over real HTTP.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';

export type FaultAction =
  | { kind: 'respond'; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: 'drop' }
  /** The request reaches the bank, but its answer is lost (connection dropped). */
  | { kind: 'lose-answer' }
  | { kind: 'rewrite'; fn: (json: unknown) => unknown };

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
}

export interface FaultProxy {
  url: string;
  seen: SeenRequest[];
  /** First matching rule wins; a rule answering undefined passes the request through. */
  rules: Array<(req: SeenRequest) => FaultAction | undefined>;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const t = new URL(target);
  const seen: SeenRequest[] = [];
  const rules: FaultProxy['rules'] = [];
  const server: Server = createServer((req, res) => {
    const info: SeenRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers };
    seen.push(info);
    let action: FaultAction | undefined;
    for (const r of rules) {
      action = r(info);
      if (action) break;
    }
    if (action?.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (action?.kind === 'respond') {
      const body =
        action.body === undefined
          ? ''
          : typeof action.body === 'string'
            ? action.body
            : JSON.stringify(action.body);
      res.writeHead(action.status, {
        'content-type': 'application/json',
        date: new Date().toUTCString(),
        ...action.headers,
      });
      res.end(body);
      return;
    }
    const upstream = httpRequest(
      {
        host: t.hostname,
        port: t.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: t.host },
      },
      (up) => {
        if (action?.kind === 'lose-answer') {
          up.resume();
          up.on('end', () => req.socket.destroy());
          return;
        }
        if (action?.kind === 'rewrite') {
          const chunks: Buffer[] = [];
          up.on('data', (c: Buffer) => chunks.push(c));
          up.on('end', () => {
            const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
            const out = JSON.stringify(action.fn(json));
            const headers = { ...up.headers };
            delete headers['content-length'];
            delete headers['transfer-encoding'];
            res.writeHead(up.statusCode ?? 502, headers);
            res.end(out);
          });
          return;
        }
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    seen,
    rules,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

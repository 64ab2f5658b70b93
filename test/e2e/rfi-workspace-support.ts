/**
 * Support for the RFI workspace specs: a sandbox run by the test, reached by the services through
 * a loopback proxy the test can take down and bring back on the same port (the bank "stops" for
 * the app while its state survives), which also routes signed upload URLs through itself and
 * slows uploads down so their progress can be seen.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Transform } from 'node:stream';
import { writeFile } from 'node:fs/promises';
import { startSandbox } from '../../src/sandbox/index';
import type { RunningSandbox, SandboxOptions } from '../../src/sandbox/index';

export interface BankProxy {
  url: string;
  port: number;
  /** Upload bytes per 50 ms tick through the proxy (0 = unthrottled). */
  uploadBytesPerTick: number;
  /** Takes the bank away: the listening socket closes and open connections are cut. */
  stop(): Promise<void>;
  /** Brings it back on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

function throttle(bytesPerTick: () => number): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const n = bytesPerTick();
      if (n <= 0) return done(null, chunk);
      let offset = 0;
      const push = (): void => {
        const part = chunk.subarray(offset, offset + n);
        offset += part.length;
        this.push(part);
        if (offset < chunk.length) setTimeout(push, 50);
        else setTimeout(done, 50);
      };
      push();
    },
  });
}

export async function startBankProxy(target: string): Promise<BankProxy> {
  const t = new URL(target);
  const sockets = new Set<Socket>();
  let port = 0;
  const proxy: BankProxy = {
    url: '',
    port: 0,
    uploadBytesPerTick: 0,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async start() {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
    },
    async close() {
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const isUploadUrl = req.method === 'POST' && req.url === '/v1/documents/upload-url';
    const isPut = req.method === 'PUT' && (req.url ?? '').startsWith('/uploads/');
    const up = httpRequest(
      {
        host: t.hostname,
        port: t.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: t.host },
      },
      (answer) => {
        if (!isUploadUrl || (answer.statusCode ?? 500) >= 300) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          // The signed URL goes through the proxy too (its signature does not cover the host).
          const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { url: string };
          json.url = json.url.replace(target, proxy.url);
          const headers = { ...answer.headers };
          delete headers['content-length'];
          res.writeHead(answer.statusCode ?? 200, headers);
          res.end(JSON.stringify(json));
        });
      },
    );
    up.on('error', () => res.destroy());
    if (isPut) req.pipe(throttle(() => proxy.uploadBytesPerTick)).pipe(up);
    else req.pipe(up);
  };
  const server: Server = createServer(handle);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const a = server.address();
  if (!a || typeof a === 'string') throw new Error('no port');
  port = a.port;
  proxy.port = port;
  proxy.url = `http://127.0.0.1:${port}`;
  return proxy;
}

export interface Bank {
  sandbox: RunningSandbox;
  proxy: BankProxy;
  token: string;
  legalEntityId: string;
  /** GET a path on the sandbox directly (not through the proxy), as the analyst's credential. */
  get<T>(path: string): Promise<T>;
  /** POST on the sandbox directly. Staff endpoints take no token. */
  post<T>(path: string, body: unknown): Promise<T>;
  close(): Promise<void>;
}

export interface WireRfi {
  id: string;
  status: string;
  questions: Array<{
    id: string;
    status: string;
    question_type: string;
    responses: Array<{
      id: string;
      responder_type: string;
      response: Record<string, { response_text: string; document_ids: string[] }>;
    }>;
  }>;
}

export async function startBank(options: Partial<SandboxOptions> = {}): Promise<Bank> {
  const sandbox = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 }, ...options });
  const proxy = await startBankProxy(sandbox.url);
  const le = sandbox.fixtures.legal_entities[0];
  if (!le) throw new Error('no legal entity');
  const token = le.tokens.admin;
  if (!token) throw new Error('no admin token');
  const send = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const r = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(path.startsWith('/v1/sandbox/') ? sandbox.controlHeaders() : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await r.json()) as T;
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    sandbox,
    proxy,
    token,
    legalEntityId: le.id,
    get: (p) => send('GET', p),
    post: (p, b) => send('POST', p, b),
    async close() {
      await proxy.close();
      await sandbox.close();
    },
  };
}

export function customerResponses(
  rfi: WireRfi,
  questionId: string,
): WireRfi['questions'][number]['responses'] {
  return (
    rfi.questions
      .find((q) => q.id === questionId)
      ?.responses.filter((r) => r.responder_type === 'customer') ?? []
  );
}

/** A real (minimal, valid) PDF padded with a comment to `size` bytes. */
export async function writePdf(file: string, size: number): Promise<void> {
  const head =
    '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n%';
  // The cross-reference table and the trailer pointing at it (main checks the PDF by its structure).
  // The file is exactly `size` bytes: the tail's length depends on the offset it names, so settle it twice.
  const trailer = (pad: number): string =>
    `\nxref\n0 1\n0000000000 65535 f \ntrailer<</Root 1 0 R>>\nstartxref\n${head.length + pad + 1}\n%%EOF\n`;
  let pad = Math.max(0, size - head.length - trailer(size).length);
  pad = Math.max(0, size - head.length - trailer(pad).length);
  const tail = trailer(pad);
  await writeFile(file, Buffer.concat([Buffer.from(head), Buffer.alloc(pad, 0x41), Buffer.from(tail)]));
}

/**
 * The sandbox against other local processes and rebinding pages, over real HTTP: the Host header
 * is checked before any routing, and the control routes need the per-run secret.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCliOptions } from '../../src/sandbox/cli-options';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index';
import { routes } from '../../src/shared/api';
import { client, err, start } from './helpers';

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start();
});
afterAll(async () => {
  await sb.close();
});

/** A raw request with exactly the Host header given (fetch does not let a caller set it). */
function rawGet(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, path, method: 'GET', headers, setHost: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('Host header (DNS rebinding)', () => {
  it('refuses a foreign Host with 421 before routing, even with the control secret', async () => {
    const port = new URL(sb.url).port;
    for (const host of [
      `evil.example:${port}`,
      'evil.example',
      `127.0.0.1.evil.example:${port}`,
      `127.0.0.1:1`,
    ]) {
      const r = await rawGet(sb.url, '/v1/sandbox/fixtures', { host, ...sb.controlHeaders() });
      expect(r.status, host).toBe(421);
      expect(r.body).not.toContain('tds_');
      expect(JSON.parse(r.body)).toMatchObject({
        error: { code: '421', status: 'PERMISSION_DENIED', reason: 'HOST_NOT_ALLOWED' },
      });
    }
    // also unknown paths and bank routes: nothing is routed
    expect((await rawGet(sb.url, '/nowhere', { host: `evil.example:${port}` })).status).toBe(421);
    const bank = await rawGet(sb.url, '/v1/rfis', {
      host: `evil.example:${port}`,
      authorization: `Bearer ${sb.fixtures.legal_entities[0]!.tokens.admin}`,
    });
    expect(bank.status).toBe(421);
    // a request without any Host header is refused too (Node's parser already answers 400)
    const none = await rawGet(sb.url, '/v1/sandbox/fixtures', sb.controlHeaders());
    expect([400, 421]).toContain(none.status);
    expect(none.body).not.toContain('tds_');
  });

  it('answers its loopback names with its own port: 127.0.0.1, localhost, [::1] (any case)', async () => {
    const port = new URL(sb.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LocalHost:${port}`, `[::1]:${port}`]) {
      const r = await rawGet(sb.url, '/v1/sandbox/fixtures', { host, ...sb.controlHeaders() });
      expect(r.status, host).toBe(200);
    }
  });

  it('accepts an extra name only when the operator allows it', async () => {
    const other = await start({ allowedHosts: ['sandbox.test'] });
    try {
      const port = new URL(other.url).port;
      const ok = await rawGet(other.url, '/v1/sandbox/clock', {
        host: `sandbox.test:${port}`,
        ...other.controlHeaders(),
      });
      expect(ok.status).toBe(200);
      expect(
        (
          await rawGet(other.url, '/v1/sandbox/clock', {
            host: `evil.example:${port}`,
            ...other.controlHeaders(),
          })
        ).status,
      ).toBe(421);
    } finally {
      await other.close();
    }
  });
});

describe('control routes need the per-run secret', () => {
  const c = () => client(sb);
  const controlRoutes = Object.entries(routes).filter(([, d]) => d.auth === 'control');

  it('every /v1/sandbox/* route but the public key is a control route', () => {
    const sandboxRoutes = Object.entries(routes).filter(([, d]) => d.path.startsWith('/v1/sandbox/'));
    expect(controlRoutes.map(([id]) => id).sort()).toEqual(
      sandboxRoutes
        .map(([id]) => id)
        .filter((id) => id !== 'getWebhookPublicKey')
        .sort(),
    );
    expect(routes.getWebhookPublicKey.auth).toBe('none');
  });

  it('refuses every control route without the secret or with a wrong one (403), before acting', async () => {
    const before = (await c()('GET', '/v1/sandbox/clock')).body;
    for (const [id, def] of controlRoutes) {
      const path = def.path.replace(/:([A-Za-z]+)/g, 'x_1');
      const body = def.method === 'POST' ? {} : undefined;
      for (const control of [false, 'wrong-secret-of-32-characters-xx', `${sb.controlSecret}x`] as const) {
        const r = await c()(def.method, path, { control, body });
        expect(r.status, `${id} ${String(control)}`).toBe(403);
        expect(err(r)).toMatchObject({ status: 'PERMISSION_DENIED', reason: 'SANDBOX_CONTROL_SECRET' });
        expect(r.text).not.toContain('tds_');
      }
    }
    // a bearer token is no substitute
    const withToken = await c()('GET', '/v1/sandbox/fixtures', {
      control: false,
      token: sb.fixtures.legal_entities[0]!.tokens.admin,
    });
    expect(withToken.status).toBe(403);
    // nothing moved: the clock advance was refused
    expect((await c()('GET', '/v1/sandbox/clock')).body).toMatchObject({
      offset_seconds: (before as { offset_seconds: number }).offset_seconds,
    });
  });

  it('accepts the secret: fixtures, clock, staff RFI routes', async () => {
    const f = await c()('GET', '/v1/sandbox/fixtures');
    expect(f.status).toBe(200);
    const adv = await c()('POST', '/v1/sandbox/clock', { body: { advance_seconds: 1 } });
    expect(adv.status).toBe(200);
    const le = sb.fixtures.legal_entities[0]!;
    const rfi = await c()('POST', '/v1/sandbox/rfis', {
      body: {
        type: 'account',
        related_id: le.accounts[0]!.id,
        description: 'guard test',
        questions: [{ question_type: 'transaction.purpose', question_text: 'Why?' }],
      },
    });
    expect(rfi.status).toBe(200);
  });

  it('serves the webhook public key without the secret (public information, still behind the Host check)', async () => {
    const r = await c()('GET', '/v1/sandbox/webhook-public-key', { control: false });
    expect(r.status).toBe(200);
    expect((r.body as { public_key_pem: string }).public_key_pem).toBe(sb.publicKeyPem);
  });

  it('is random per run unless set; an operator-set secret is used as given; a short one is refused', async () => {
    const other = await start();
    const set = await start({ controlSecret: 'operator-chosen-secret-123' });
    try {
      expect(other.controlSecret).not.toBe(sb.controlSecret);
      expect(other.controlSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(other.options.controlSecret).toBeUndefined();
      // another sandbox's secret does not open this one
      expect((await client(sb)('GET', '/v1/sandbox/fixtures', { control: other.controlSecret })).status).toBe(
        403,
      );
      expect(set.controlSecret).toBe('operator-chosen-secret-123');
      expect((await client(set)('GET', '/v1/sandbox/fixtures')).status).toBe(200);
    } finally {
      await other.close();
      await set.close();
    }
    await expect(startSandbox({ port: 0, controlSecret: 'short' })).rejects.toThrow(/controlSecret/);
  });

  it('CLI: --control-secret / TREASURY_SANDBOX_CONTROL_SECRET and --allowed-host', () => {
    expect(
      parseCliOptions(['--control-secret', 'from-the-flag-0123456'], {
        TREASURY_SANDBOX_CONTROL_SECRET: 'from-the-env-0123456789',
      }).controlSecret,
    ).toBe('from-the-flag-0123456');
    expect(
      parseCliOptions([], { TREASURY_SANDBOX_CONTROL_SECRET: 'from-the-env-0123456789' }).controlSecret,
    ).toBe('from-the-env-0123456789');
    expect(
      parseCliOptions(['--allowed-host', 'a.test,b.test', '--allowed-host=c.test'], {}).allowedHosts,
    ).toEqual(['a.test', 'b.test', 'c.test']);
  });
});

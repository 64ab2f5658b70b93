import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src/main/ipc/dispatcher';
import { channelNames } from '../../src/shared/ipc/contract';
import { startFaultProxy } from '../support/fault-proxy';
import { startServices } from '../support/services';

/**
 * The token never crosses IPC and is never written down by the app: after a session that stores,
 * replaces, refuses and deletes tokens, switches credentials, writes to the bank and fails in
 * every way, no IPC answer, push event, log line or file under the data folder contains any token.
 */
describe('token secrecy', () => {
  it('no token in any IPC result, push event, log line or file of the data folder', async () => {
    const t = await startServices();
    const proxy = await startFaultProxy(t.services.sandbox!.url);
    const results: unknown[] = [];
    const sender = { url: 'app://desk/index.html', isMainFrame: true };
    const dispatch = createDispatcher({
      handlers: t.services.handlers,
      isTrustedSender: () => true,
      log: t.services.log,
    });
    const call = async (channel: string, args?: unknown): Promise<unknown> => {
      const env = await dispatch(channel, args, sender);
      results.push(env);
      return env;
    };
    const fx = t.services.sandbox!.fixtures;
    const A = fx.legal_entities[0]!;
    const typed = 'typed-by-analyst-token-7f3a9c';
    const secrets = [
      typed,
      ...fx.legal_entities.flatMap((le) => [le.tokens.admin, le.tokens.viewer ?? '']),
    ].filter(Boolean);
    try {
      // Everything the renderer can ask, with arguments that make sense.
      for (const name of channelNames) await call(name, undefined);
      await call('session.useSandboxCredential', { credential: 'a-viewer' });
      await call('session.useSandboxCredential', { credential: 'b-admin' });
      await call('session.useSandboxCredential', { credential: 'a-admin' });
      t.platform.nextConfirmAnswers.push(true); // replacing the stored token: confirmed natively
      await call('vault.setToken', { profileId: 'sandbox', token: typed }); // refused by the bank
      await call('session.status');
      await call('vault.deleteToken', { profileId: 'sandbox' });
      await call('session.status');
      await call('session.useSandboxCredential', { credential: 'a-admin' });
      await call('vault.setToken', { profileId: 'sandbox', token: 'x' }); // malformed
      t.platform.nextConfirmAnswers.push(true); // the analyst approves the address natively
      await call('settings.addProfile', { name: 'Proxy bank', baseUrl: proxy.url });
      const settings = (await call('settings.get')) as {
        ok: true;
        value: { profiles: Array<{ id: string; name: string }> };
      };
      const proxyId = settings.value.profiles.find((p) => p.name === 'Proxy bank')!.id;
      await call('vault.setToken', { profileId: proxyId, token: A.tokens.admin });
      await call('settings.activateProfile', { profileId: proxyId });

      // Failures of every kind through the proxy, with writes recorded in the audit log.
      proxy.rules.push((r) =>
        r.path.startsWith('/v1/transactions/txn_boom')
          ? { kind: 'respond', status: 500, body: 'oops' }
          : undefined,
      );
      proxy.rules.push((r) =>
        r.path.startsWith('/v1/webhook/url') && r.method === 'GET'
          ? { kind: 'rewrite', fn: (j) => ({ ...(j as object), role: 7 }) }
          : undefined,
      );
      await t.services.bank.getTransaction('txn_boom').catch(() => undefined);
      await call('session.status');
      await t.services.operations
        .createReturnIntent('secrecy-1', {
          transfer_return_type: 'SWIFT_FI_TO_FI_RETURN',
          transaction_id: A.incoming_transfers[0]!.transaction_id,
          return_amount: '100',
          status_reason_code: 'AC03',
        })
        .catch(() => undefined);
      const tx = await t.services.readAfterCreate(A.incoming_transfers[0]!.transaction_id).catch(() => null);
      expect(tx?.status).toBe('intent_created');
      t.platform.nextSaveAnswers.push(path.join(t.dataDir, 'audit-export.csv'));
      await call('audit.exportCsv');
      await call('audit.list');
      await call('settings.activateProfile', { profileId: 'sandbox' });
      t.platform.nextConfirmAnswers.push(true);
      await call('vault.setToken', { profileId: 'sandbox', token: 'wrong-token-123456789' });
      await t.services.bank.getWebhookConfig().catch(() => undefined);
      await call('settings.get');

      // Every request to the bank did carry a token (the check above is not vacuous).
      expect(proxy.seen.some((r) => r.headers.authorization === `Bearer ${A.tokens.admin}`)).toBe(true);
      expect(results.length).toBeGreaterThan(channelNames.length + 10);

      const haystacks: Array<[string, string]> = [
        ['IPC results', JSON.stringify(results)],
        ['push events', JSON.stringify(t.pushed)],
        ['log lines', JSON.stringify(t.logs)],
      ];
      for (const f of await readdir(t.dataDir, { recursive: true })) {
        const text = await readFile(path.join(t.dataDir, f))
          .then((b) => b.toString('utf8'))
          .catch(() => '');
        haystacks.push([`file ${f}`, text]);
      }
      expect(haystacks.some(([what]) => what === 'file settings.json')).toBe(true);
      expect(haystacks.some(([what]) => what === 'file audit.jsonl')).toBe(true);
      for (const [what, text] of haystacks) {
        for (const s of [...secrets, 'wrong-token-123456789'])
          expect(text.includes(s), `${what} contains a token`).toBe(false);
      }
    } finally {
      await proxy.close();
      await t.close();
    }
  });
});

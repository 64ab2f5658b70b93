/**
 * What an RFI is about is named through the profile that owns the RFI, never the default one:
 * Alder (the embedded sandbox profile) is the default, Birch a second profile whose bank traffic
 * goes through a recording proxy. Birch's transfer is named by its counterparty and amount as
 * Birch's bank tells it (Alder's token cannot even read it), once, with Birch's token; Birch's
 * account by its own name and holder; the same words reach the case file.
 */
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { formatMinor, parseMinor } from '../../src/shared/money';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import { pdfText } from '../support/pdf-text';
import { startServices } from '../support/services';
import type { TestServices } from '../support/services';

let t: TestServices | null = null;
let proxy: FaultProxy | null = null;

afterEach(async () => {
  await t?.close();
  t = null;
  await proxy?.close();
  proxy = null;
});

it('names a transfer and an account of the second entity through that entity’s own profile, once', async () => {
  t = await startServices();
  const h = t.services.handlers;
  const sandbox = t.services.sandbox!;
  const [alder, birch] = sandbox.fixtures.legal_entities;
  proxy = await startFaultProxy(sandbox.url);
  t.platform.nextConfirmAnswers.push(true); // the analyst approves the address natively
  const view = await h['settings.addProfile']({ name: 'Birch', baseUrl: proxy.url });
  const birchId = view.profiles.find((p) => p.name === 'Birch')!.id;
  await h['vault.setToken']({ profileId: birchId, token: birch!.tokens.admin! });
  const alderId = t.services.session.profile.id;

  // Birch's transfer as its bank tells it, and Alder's token cannot see it at all.
  const transfer = birch!.incoming_transfers[0]!;
  const atBank = await fetch(`${sandbox.url}/v1/transactions/${transfer.transaction_id}`, {
    headers: { authorization: `Bearer ${birch!.tokens.admin!}` },
  });
  const incoming = ((await atBank.json()) as { fi_to_fi_swift_incoming: Record<string, string> })
    .fi_to_fi_swift_incoming;
  const words = `${incoming['debtor_name']}, ${formatMinor(parseMinor(incoming['amount']!), incoming['currency']!)}`;
  const asAlder = await fetch(`${sandbox.url}/v1/transactions/${transfer.transaction_id}`, {
    headers: { authorization: `Bearer ${alder!.tokens.admin!}` },
  });
  expect(asAlder.status).toBe(404);

  // Birch's account as the analyst labelled it in Birch's own account book (a bank other than the
  // embedded one seeds no book), and the same account as the default profile's seeded book knows it.
  const account = birch!.accounts.find((a) => a.asset === 'USD')!;
  await h['crypto.saveAccount']({
    profileId: birchId,
    accountId: account.id,
    label: 'Birch main (USD)',
    asset: 'USD',
  });
  const items = [
    { profileId: birchId, type: 'transaction', relatedId: transfer.transaction_id },
    { profileId: birchId, type: 'account', relatedId: account.id },
    // The same transfer asked of the default profile: its bank does not show it, so no name.
    { profileId: alderId, type: 'transaction', relatedId: transfer.transaction_id },
    { profileId: alderId, type: 'account', relatedId: account.id },
  ];
  const first = await h['rfis.related']({ items });
  expect(first.items).toEqual([
    {
      profileId: birchId,
      relatedId: transfer.transaction_id,
      name: words,
      holder: null,
      transfer: {
        counterparty: 'Quarry Stone AG',
        amount: incoming['amount'],
        currency: incoming['currency'],
      },
    },
    { profileId: birchId, relatedId: account.id, name: 'Birch main (USD)', holder: null },
    // The embedded bank's fixtures seed its own profile's book with the account's name and holder.
    { profileId: alderId, relatedId: account.id, name: account.name, holder: birch!.name },
  ]);
  expect(words).toMatch(/^Quarry Stone AG, 20,000\.00 USD$/);
  const reads = proxy.seen.filter((r) => r.path === `/v1/transactions/${transfer.transaction_id}`);
  expect(reads).toHaveLength(1);
  expect(reads[0]!.headers.authorization).toBe(`Bearer ${birch!.tokens.admin!}`);

  // Asked again (another screen, the next sync): remembered, not read again.
  proxy.seen.length = 0;
  expect((await h['rfis.related']({ items })).items).toEqual(first.items);
  expect(proxy.seen.filter((r) => r.path.startsWith('/v1/transactions/'))).toHaveLength(0);

  // A profile that does not exist names nothing (its rows may linger a moment after removal).
  expect((await h['rfis.related']({ items: [{ ...items[0]!, profileId: 'gone' }] })).items).toEqual([]);

  // The case file of Birch's transfer RFI says what it is about in the same words, id beside them.
  const rfis = await Promise.all(
    birch!.rfi_ids.map(async (id) => {
      const r = await fetch(`${sandbox.url}/v1/rfis/${id}`, {
        headers: { authorization: `Bearer ${birch!.tokens.admin!}` },
      });
      return (await r.json()) as { id: string; type: string; related_id: string };
    }),
  );
  const rfi = rfis.find((r) => r.type === 'transaction' && r.related_id === transfer.transaction_id)!;
  await expect
    .poll(async () => (await t!.services.entityWatch.list({ profileId: birchId })).total, { timeout: 10_000 })
    .toBeGreaterThan(0);
  const pdf = path.join(t.dataDir, 'related.pdf');
  await t.services.caseFiles.write([{ profileId: birchId, rfiId: rfi.id }], pdf, null);
  const text = (await pdfText(pdf)).replace(/\s+/g, ' ');
  expect(text).toContain(`about ${words} (transfer ${transfer.transaction_id})`);
});

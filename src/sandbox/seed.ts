/**
 * The seed: legal entity A (admin and viewer tokens) and B (admin token), and with the option
 * `extraLegalEntities` further entities C, D, … (admin and viewer tokens, one USD account, no
 * RFIs), USD accounts and
 * digital-asset wallets with balances, settled incoming SWIFT transfers (one larger than its
 * creditor account's balance, one not settled) and RFIs of all seven types in several states with
 * text and document questions and customer, staff and system responses.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Bank } from './bank';
import type { Doc, LegalEntity, Question, RfiRec } from './model';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** A tiny valid PDF used as seeded document content. */
export function samplePdf(title: string): Buffer {
  return Buffer.from(
    `%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n% ${title}\ntrailer<</Root 1 0 R>>\n%%EOF\n`,
  );
}

/** Names of the optional extra legal entities, in order. */
export const EXTRA_ENTITY_NAMES = [
  'Cedar Holdings AG',
  'Dogwood Logistics BV',
  'Elm Street Partners LLP',
  'Fir Industries SA',
  'Ginkgo Trading Pte',
  'Hazel Foods Oy',
  'Ironwood Mining Ltd',
  'Juniper Textiles SpA',
] as const;

/** The seed's ways of writing into the bank: transfers, documents, RFIs and their responses. */
function seeder(bank: Bank, dataDir: string, now: number) {
  // Incoming transfers. The balances seedParties set already include them: credit without changing the seed
  // balance by booking them as not-yet-credited then restoring the balance.
  const book = (
    le: LegalEntity,
    accId: string,
    amount: bigint,
    daysAgo: number,
    debtor: string,
    remittance: string,
    status: 'completed' | 'in_progress' = 'completed',
  ) => {
    const acc = bank.state.accounts.get(accId);
    const before = acc?.balance ?? 0n;
    const t = bank.transfers.addIncomingTransfer({
      legalEntityId: le.id,
      creditorAccountId: accId,
      amount,
      debtorName: debtor,
      remittance,
      status,
      createdAt: now - daysAgo * DAY,
    });
    if (acc) acc.balance = before;
    return t;
  };
  // Documents referenced by seeded responses.
  const storeDoc = async (
    le: LegalEntity,
    rfi: RfiRec,
    documentType: string,
    title: string,
  ): Promise<Doc> => {
    const bytes = samplePdf(title);
    const doc: Doc = {
      id: bank.state.ids.id('doc'),
      legalEntityId: le.id,
      relatedId: rfi.id,
      contentType: 'application/pdf',
      documentType,
      createdAt: rfi.createdAt,
      expiresAt: rfi.createdAt + 15 * 60_000,
      uploaded: true,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      sizeBytes: bytes.length,
      path: path.join(dataDir, `${bank.state.ids.hex(24)}.bin`),
      usedBy: null,
      attempts: 1,
    };
    await writeFile(doc.path as string, bytes);
    bank.state.docs.set(doc.id, doc);
    return doc;
  };

  const mk = (
    le: LegalEntity,
    type: string,
    related: string,
    description: string,
    createdAt: number,
    questions: { question_type: string; question_text: string; comment?: string }[],
  ) => {
    const rfi = bank.rfis.createRfi(
      { legal_entity_id: le.id, type, related_id: related, description, questions },
      { createdAt, emit: false },
    );
    le.seededRfiIds.push(rfi.id);
    return rfi;
  };
  const q = (rfi: RfiRec, i: number): Question => {
    const x = rfi.questions[i];
    if (!x) throw new Error('seed: missing question');
    return x;
  };
  const respond = (
    rfi: RfiRec,
    qu: Question,
    who: 'customer' | 'staff' | 'system',
    text: string,
    docs: string[],
    at: number,
    status: string,
  ) => {
    qu.responses.push(bank.rfis.newResponse(qu, who, text, docs, at));
    if (who === 'customer') qu.documentIds.push(...docs);
    qu.status = status;
    qu.updatedAt = at;
    rfi.updatedAt = Math.max(rfi.updatedAt, at);
  };
  const finish = (rfi: RfiRec, status?: string) => {
    const statuses = rfi.questions.map((x) => x.status);
    rfi.status =
      status ??
      (statuses.includes('timeout')
        ? 'timeout'
        : statuses.includes('action_required')
          ? 'action_required'
          : 'pending_review');
    rfi.json = null;
    bank.rfis.scheduleTimeout(rfi);
  };

  return { now, book, storeDoc, mk, q, respond, finish };
}

type Seeder = ReturnType<typeof seeder>;

/** Legal entities A (Alder) and B (Birch): credentials, USD accounts and digital-asset wallets. */
function seedParties(bank: Bank, created: number) {
  const a = bank.parties.addLegalEntity('Alder Trade GmbH');
  bank.parties.addCredential(a, 'admin', { first_name: 'Alex', last_name: 'Morgan' }, created);
  bank.parties.addCredential(a, 'viewer', { first_name: 'Vera', last_name: 'Lind' }, created);
  const aUsd = bank.parties.addAccount(a, 'Alder USD operating', 'USD', 250_000_000n);
  const aUsdSmall = bank.parties.addAccount(a, 'Alder USD collections', 'USD', 100_000n);
  bank.parties.addAccount(a, 'Alder USDT wallet', 'ETHEREUM-USDT', 50_000_000_000n);
  bank.parties.addAccount(a, 'Alder USDC wallet', 'ETHEREUM-USDC', 10_000_000_000n);

  const b = bank.parties.addLegalEntity('Birch Capital Ltd');
  bank.parties.addCredential(b, 'admin', { first_name: 'Ben', last_name: 'Okafor' }, created);
  const bUsd = bank.parties.addAccount(b, 'Birch USD main', 'USD', 80_000_000n);
  bank.parties.addAccount(b, 'Birch USDT wallet', 'ETHEREUM-USDT', 5_000_000_000n);
  bank.parties.addAccount(b, 'Birch USDC wallet', 'ETHEREUM-USDC', 1_000_000_000n);

  return { a, aUsd, aUsdSmall, b, bUsd };
}

type Parties = ReturnType<typeof seedParties>;

/** Settled incoming transfers (one to an account smaller than it, one not settled). */
function seedTransfers({ book }: Seeder, { a, aUsd, aUsdSmall, b, bUsd }: Parties) {
  const t1 = book(a, aUsd.id, 1_250_000n, 3, 'Harbour Freight Ltd', 'INV-20431 freight March');
  book(a, aUsd.id, 320_050n, 5, 'Kestrel Components SA', 'PO 7781 components');
  book(a, aUsd.id, 9_800_000n, 8, 'Northgate Metals Inc', 'Contract NM-2209 instalment 2');
  book(a, aUsdSmall.id, 500_000n, 2, 'Lumen Retail BV', 'Refund order 55102');
  book(a, aUsdSmall.id, 80_000n, 1, 'Lumen Retail BV', 'Deposit refund part 1/2');
  book(a, aUsdSmall.id, 60_000n, 1, 'Lumen Retail BV', 'Deposit refund part 2/2');
  book(a, aUsd.id, 75_000n, 0, 'Osprey Consulting LLC', 'Advisory fee', 'in_progress');
  const tb = book(b, bUsd.id, 2_000_000n, 4, 'Quarry Stone AG', 'Invoice QS-118');
  book(b, bUsd.id, 450_000n, 6, 'Redwood Shipping Co', 'Demurrage settlement');

  return { t1, tb };
}

/** Alder's RFIs 1–4: action required, pending review, approved after a follow-up, closed. */
async function seedAlderRfisOpen(s: Seeder, { a, aUsd }: Parties, t1: { id: string }): Promise<void> {
  const { now, storeDoc, mk, q, respond, finish } = s;
  // 1. transaction: action_required, text + document question.
  const r1 = mk(a, 'transaction', t1.id, 'Incoming transfer from Harbour Freight Ltd', now - 2 * DAY, [
    { question_type: 'transaction.purpose', question_text: 'What is the purpose of this payment?' },
    {
      question_type: 'transaction.supporting_documents',
      question_text: 'Please upload the invoice or contract behind this payment.',
    },
  ]);
  finish(r1);

  // 2. account: pending_review, document answered by the customer.
  const r2 = mk(a, 'account', aUsd.id, 'Periodic review of the operating account', now - 10 * DAY, [
    {
      question_type: 'identification.legal_entity.business_registry',
      question_text: 'Please upload a current business registry extract (less than 3 months old).',
    },
    {
      question_type: 'transaction.source_of_funds',
      question_text: 'Describe the main sources of incoming funds.',
    },
  ]);
  const d2 = await storeDoc(a, r2, 'business_registry_extract', 'Registry extract Alder Trade GmbH');
  respond(r2, q(r2, 0), 'customer', '', [d2.id], now - 6 * DAY, 'pending_review');
  d2.usedBy = q(r2, 0).responses[0]?.id ?? 'seed';
  respond(
    r2,
    q(r2, 1),
    'customer',
    'Trade receivables from EU customers.',
    [],
    now - 6 * DAY,
    'pending_review',
  );
  finish(r2);

  // 3. nominal_sub_account: approved, history customer → staff → customer → staff approve.
  const r3 = mk(a, 'nominal_sub_account', aUsd.id, 'Nominal sub-account purpose', now - 40 * DAY, [
    { question_type: 'transaction.purpose', question_text: 'What will the nominal sub-account be used for?' },
  ]);
  const q3 = q(r3, 0);
  respond(r3, q3, 'customer', 'Client money.', [], now - 38 * DAY, 'pending_review');
  respond(
    r3,
    q3,
    'staff',
    'Please give more detail: which clients and which flows?',
    [],
    now - 37 * DAY,
    'action_required',
  );
  respond(
    r3,
    q3,
    'customer',
    'Escrow for freight customers, USD only, about 40 payments a month.',
    [],
    now - 35 * DAY,
    'pending_review',
  );
  respond(r3, q3, 'staff', 'Thank you, approved.', [], now - 34 * DAY, 'approved');
  finish(r3, 'approved');
  r3.updatedAt = now - 34 * DAY;

  // 4. nominal_sub_account_opening: closed.
  const r4 = mk(a, 'nominal_sub_account_opening', aUsd.id, 'Opening request withdrawn', now - 50 * DAY, [
    { question_type: 'transaction.purpose', question_text: 'Why do you need an additional sub-account?' },
  ]);
  respond(
    r4,
    q(r4, 0),
    'customer',
    'Request withdrawn by the customer.',
    [],
    now - 48 * DAY,
    'pending_review',
  );
  respond(r4, q(r4, 0), 'staff', 'Closed at the customer’s request.', [], now - 47 * DAY, 'closed');
  finish(r4, 'closed');
}

/** Alder's RFIs 5–8: a staff follow-up, one near its deadline, rejected, timed out. */
async function seedAlderRfisLater(
  s: Seeder,
  { a, aUsd, aUsdSmall }: Parties,
  t1: { id: string },
): Promise<void> {
  const { now, storeDoc, mk, q, respond, finish } = s;
  // 5. segment_upgrade: action_required after a staff follow-up.
  const r5 = mk(a, 'segment_upgrade', aUsd.id, 'Upgrade to the corporate segment', now - 9 * DAY, [
    {
      question_type: 'identification.legal_entity.ubo_documentation',
      question_text: 'Upload the register of ultimate beneficial owners.',
    },
    {
      question_type: 'transaction.source_of_funds',
      question_text: 'Expected monthly volume and its origin?',
    },
  ]);
  const d5 = await storeDoc(a, r5, 'ubo_documentation', 'UBO register (outdated)');
  respond(r5, q(r5, 0), 'customer', '', [d5.id], now - 8 * DAY, 'pending_review');
  d5.usedBy = 'seed';
  respond(
    r5,
    q(r5, 0),
    'staff',
    'This register is from 2021; please upload the current one.',
    [],
    now - 7 * DAY,
    'action_required',
  );
  respond(
    r5,
    q(r5, 1),
    'customer',
    'About USD 2m a month from trade receivables.',
    [],
    now - 8 * DAY,
    'pending_review',
  );
  finish(r5);

  // 6. nominal_sub_account_kyc: action_required, near its 30-day deadline (about 6 hours left).
  const r6 = mk(
    a,
    'nominal_sub_account_kyc',
    aUsdSmall.id,
    'KYC of the individual behind sub-account 0042',
    now - 30 * DAY + 6 * HOUR,
    [
      {
        question_type: 'identification.individual.passport',
        question_text: 'Passport of the account holder.',
      },
      {
        question_type: 'identification.individual.proof_of_address',
        question_text: 'Proof of address (less than 3 months old).',
      },
    ],
  );
  finish(r6);

  // 7. nominal_sub_account_kyb: rejected.
  const r7 = mk(a, 'nominal_sub_account_kyb', aUsdSmall.id, 'KYB of Lumen Retail BV', now - 25 * DAY, [
    {
      question_type: 'identification.legal_entity.business_registry',
      question_text: 'Business registry extract of the organisation.',
    },
  ]);
  const d7 = await storeDoc(a, r7, 'business_registry_extract', 'Registry extract Lumen Retail BV');
  respond(r7, q(r7, 0), 'customer', '', [d7.id], now - 24 * DAY, 'pending_review');
  d7.usedBy = 'seed';
  respond(
    r7,
    q(r7, 0),
    'staff',
    'The extract does not match the organisation named on the account.',
    [],
    now - 22 * DAY,
    'rejected',
  );
  finish(r7, 'rejected');

  // 8. transaction: timed out (system response).
  const r8 = mk(a, 'transaction', t1.id, 'Earlier question on a Harbour Freight payment', now - 70 * DAY, [
    { question_type: 'transaction.purpose', question_text: 'What is the purpose of this payment?' },
  ]);
  respond(
    r8,
    q(r8, 0),
    'system',
    'No response within 30 days of the last update.',
    [],
    now - 40 * DAY,
    'timeout',
  );
  finish(r8, 'timeout');
}

/** Birch's RFIs. */
function seedBirchRfis(s: Seeder, { b, bUsd }: Parties, tb: { id: string }): void {
  const { now, mk, q, respond, finish } = s;
  // B: one action_required, one pending_review.
  const rb1 = mk(b, 'transaction', tb.id, 'Incoming transfer from Quarry Stone AG', now - DAY, [
    { question_type: 'transaction.purpose', question_text: 'What is the purpose of this payment?' },
  ]);
  finish(rb1);
  const rb2 = mk(b, 'account', bUsd.id, 'Account review', now - 5 * DAY, [
    { question_type: 'transaction.source_of_funds', question_text: 'Describe the sources of funds.' },
  ]);
  respond(rb2, q(rb2, 0), 'customer', 'Investment income.', [], now - 4 * DAY, 'pending_review');
  finish(rb2);
}

export async function seed(
  bank: Bank,
  dataDir: string,
  extraLegalEntities = 0,
  colleagueAdmin = false,
): Promise<void> {
  const now = bank.state.now();
  const created = now - 120 * DAY;
  const parties = seedParties(bank, created);
  const s = seeder(bank, dataDir, now);
  const { t1, tb } = seedTransfers(s, parties);
  await seedAlderRfisOpen(s, parties, t1);
  await seedAlderRfisLater(s, parties, t1);
  seedBirchRfis(s, parties, tb);
  // Further entities of the group (option): credentials and an account each, RFIs come later.
  for (const name of EXTRA_ENTITY_NAMES.slice(0, extraLegalEntities)) {
    const le = bank.parties.addLegalEntity(name);
    bank.parties.addCredential(le, 'admin', { first_name: 'Casey', last_name: 'Adams' }, created);
    bank.parties.addCredential(le, 'viewer', { first_name: 'Cleo', last_name: 'Varga' }, created);
    bank.parties.addAccount(le, `${name.split(' ')[0]} USD main`, 'USD', 10_000_000n);
  }
  // Last, so every fixture above is the same with or without it.
  if (colleagueAdmin) {
    const cred = bank.parties.addCredential(
      parties.a,
      'admin',
      { first_name: 'Sam', last_name: 'Ortiz' },
      created,
    );
    parties.a.tokens.colleague_admin = cred.token;
  }
}

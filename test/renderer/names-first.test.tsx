import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntryView } from '../../src/shared/ipc/channels/audit';
import type { RfiDetailView } from '../../src/shared/ipc/channels/rfis';
import {
  activitySentence,
  noNames,
  parseWho,
  whoWords,
} from '../../src/renderer/src/features/activity/words';
import type { ActivityNames } from '../../src/renderer/src/features/activity/words';
import { QuestionHistory } from '../../src/renderer/src/features/rfis/QuestionHistory';
import { DeadlineClock } from '../../src/renderer/src/features/rfis/DeadlineClock';
import { queueSubscription, useQueue } from '../../src/renderer/src/features/rfis/queue-store';
import { bankNow, refreshBankClock, useBankClock } from '../../src/renderer/src/lib/bank-clock';

/** Names before ids (Activity, RFI history) and the bank's clock behind deadline bands. */

const DAY = 24 * 3600_000;

function entry(over: Partial<AuditEntryView>): AuditEntryView {
  return {
    id: 'ae_1',
    at: '2026-11-27T08:00:00.000Z',
    who: 'Northgate Metals Inc admin credential (admin, le_7f3a9c)',
    environmentId: 'sandbox',
    environmentName: 'Embedded sandbox',
    operation: 'rfi.respond',
    idempotencyKey: null,
    target: 'rfi_113504aa',
    outcome: 'succeeded',
    detail: 'question q_1 (free_text); answer a_1',
    facts: null,
    summary: 'RFI answered — rfi_113504aa',
    ...over,
  };
}

const names: ActivityNames = {
  rfis: new Map([['rfi_113504aa', 'Source of funds for the March invoices']]),
  profiles: new Map([['p_ops', 'Operations desk']]),
  entities: new Map([['sandbox', 'Northgate Metals Inc']]),
};

describe('Activity by name', () => {
  it('names the RFI by its subject, never by its id', () => {
    expect(activitySentence(entry({}), names)).toBe('RFI answered — Source of funds for the March invoices');
    // An upload's target is the document; its record names the RFI.
    const upload = entry({
      operation: 'rfi.upload',
      target: 'doc_3e0fc8',
      detail: 'sha256 ab; 10 bytes application/pdf (invoice); RFI rfi_113504aa; question q_1; answer a_1',
      summary: 'Document uploaded for an RFI — doc_3e0fc8',
    });
    expect(activitySentence(upload, names)).toBe(
      'Document uploaded for an RFI — Source of funds for the March invoices',
    );
    // Not known here: the sentence stops at what happened (the id is in the detail).
    expect(activitySentence(entry({}), noNames)).toBe('RFI answered');
  });

  it('names a profile by its name and keeps the sentences of returns as main wrote them', () => {
    expect(activitySentence(entry({ operation: 'token.set', target: 'p_ops', summary: 'x' }), names)).toBe(
      'Token saved — Operations desk',
    );
    const ret = entry({ operation: 'return.confirm', summary: 'Return confirmed — 12.00 USD to A' });
    expect(activitySentence(ret, names)).toBe('Return confirmed — 12.00 USD to A');
  });

  it('says who by entity and role, the credential and entity id as secondary detail', () => {
    expect(parseWho(entry({}).who)).toEqual({
      label: 'Northgate Metals Inc admin credential',
      role: 'admin',
      legalEntityId: 'le_7f3a9c',
    });
    const w = whoWords(entry({}), names);
    expect(w.name).toBe('Northgate Metals Inc · Administrator');
    expect(w.name).not.toMatch(/le_|credential/);
    expect(w.detail).toBe('Credential “Northgate Metals Inc admin credential”');
    expect(w.legalEntityId).toBe('le_7f3a9c');
    expect(whoWords(entry({ who: 'unknown credential' }), noNames).name).toBe(
      'Embedded sandbox (credential not checked yet)',
    );
  });
});

type Question = RfiDetailView['rfi']['questions'][number];

describe('RFI history by name', () => {
  afterEach(() => cleanup());

  it('shows who answered by name and the documents by file name, ids only secondary', () => {
    const q = {
      id: 'q_1',
      question_type: 'invoice',
      status: 'pending_review',
      created_at: '2026-11-01T00:00:00.000Z',
      updated_at: '2026-11-01T00:00:00.000Z',
      question_data: { question_text: 'Send the invoice', comment: '', document_ids: [] },
      responses: [
        {
          id: 'r_1',
          responder_type: 'customer',
          created_at: '2026-11-02T00:00:00.000Z',
          response: { invoice: { response_text: 'Attached', document_ids: ['doc_a', 'doc_b'] } },
        },
        {
          id: 'r_2',
          responder_type: 'staff',
          created_at: '2026-11-03T00:00:00.000Z',
          response: { invoice: { response_text: 'Thanks', document_ids: [] } },
        },
      ],
    } as unknown as Question;
    render(
      <QuestionHistory
        question={q}
        ownerName="Northgate Metals Inc"
        known={new Map([['doc_a', { name: 'march-invoice.pdf', documentType: 'invoice' }]])}
        now={Date.parse('2026-11-04T00:00:00.000Z')}
      />,
    );
    const who = screen.getAllByTestId('history-who').map((e) => e.textContent);
    expect(who).toEqual(['Northgate Metals Inc (you)', 'Bank staff']);
    const docs = screen.getAllByTestId('history-document');
    expect(docs[0]!.textContent).toBe('march-invoice.pdf · Invoice');
    expect(docs[0]!.textContent).not.toContain('doc_a');
    // A document the bank holds but this computer did not send: said in words, id copyable beside it.
    expect(docs[1]!.textContent).toContain('A document not sent from this computer');
    expect(screen.getByRole('button', { name: 'Copy document id' })).toBeTruthy();
  });
});

describe('deadline bands on the bank clock', () => {
  let release: (() => void) | null = null;
  beforeEach(() => {
    useBankClock.setState({ offsetMs: 0, known: false });
    (globalThis as { desk?: unknown }).desk = {
      // The bank's clock is 25 days ahead of this computer (a sandbox whose clock moved on).
      invoke: async (channel: string) =>
        channel === 'session.clock'
          ? {
              ok: true,
              value: {
                serverNow: new Date(Date.now() + 25 * DAY).toISOString(),
                offsetMs: 25 * DAY,
                uncertaintyMs: 5,
                samples: 3,
              },
            }
          : { ok: false, error: { kind: 'offline', message: `no ${channel} here` } },
      subscribe: () => () => undefined,
    };
  });
  afterEach(() => {
    release?.();
    release = null;
    cleanup();
    delete (globalThis as { desk?: unknown }).desk;
  });

  it('measures the queue’s deadlines against the bank’s clock, as main’s bands and reminders do', async () => {
    await refreshBankClock();
    expect(bankNow() - Date.now()).toBeGreaterThan(25 * DAY - 1000);
    await act(async () => {
      release = queueSubscription.acquire();
      await Promise.resolve();
    });
    const now = useQueue.getState().now;
    expect(now - Date.now()).toBeGreaterThan(25 * DAY - 1000);
    // 30 days on this computer's clock, but 5 days by the bank's: at risk, in 5 days.
    const deadline = new Date(Date.now() + 30 * DAY).toISOString();
    const { container } = render(<DeadlineClock deadline={deadline} now={now} />);
    const el = container.querySelector('.deadline')!;
    expect(el.getAttribute('data-band')).toBe('at_risk');
    expect(el.textContent).toContain('At risk');
    expect(el.textContent).toMatch(/in 5 ?d/);
  });
});

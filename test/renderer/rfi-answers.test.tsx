import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AnswerView } from '../../src/shared/ipc/channels/rfi-answers';
import { AnswerComposer, AnswerStatus } from '../../src/renderer/src/features/rfis/AnswerComposer';
import { DeadlineClock } from '../../src/renderer/src/features/rfis/DeadlineClock';
import { formatLeft } from '../../src/renderer/src/features/rfis/format';
import { useAnswers } from '../../src/renderer/src/features/rfis/answers-store';
import { ProgressBar } from '../../src/renderer/src/components/ProgressBar';

/** The answer composer and its status line with a stand-in window.desk. */

const calls: Array<{ channel: string; args: unknown }> = [];
/** What main answers for the team's approval state (solo by default). */
const solo = { required: null, approval: null, covers: false, held: null as string | null };
let approvalState = solo;

function answer(patch: Partial<AnswerView>): AnswerView {
  return {
    id: 'a_000000000000000000000001',
    rfiId: 'rfi_1',
    questionId: 'q_1',
    questionType: 'transaction.purpose',
    state: 'queued',
    text: 'Because.',
    files: [],
    progress: null,
    lastError: null,
    conflict: null,
    attempts: 0,
    nextAttemptAt: null,
    responseId: null,
    bank: { profileId: 'sandbox', origin: 'embedded-sandbox', legalEntityId: 'le_a' },
    waitingForBank: false,
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
    ...patch,
  };
}

beforeEach(() => {
  calls.length = 0;
  approvalState = solo;
  useAnswers.setState({ byId: {}, progress: {}, limits: null });
  (globalThis as { desk?: unknown }).desk = {
    async invoke(channel: string, args: unknown) {
      // The composer reads the team's approval state (solo here: nothing needed); not a write.
      if (channel === 'team.answerApproval') return { ok: true, value: approvalState };
      if (channel === 'team.approvalRules' || channel === 'team.approvals') return { ok: true, value: [] };
      calls.push({ channel, args });
      if (channel === 'drafts.save') {
        const a = args as { rfiId: string; questionId: string; questionType: string; text: string };
        return { ok: true, value: { ...a, files: [], updatedAt: '2026-11-01T10:00:00.000Z' } };
      }
      if (channel === 'answers.submit') return { ok: true, value: answer({ state: 'queued' }) };
      return { ok: false, error: { kind: 'internal', message: `unexpected ${channel}` } };
    },
    subscribe: () => () => undefined,
  };
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  delete (globalThis as { desk?: unknown }).desk;
});

describe('AnswerStatus', () => {
  it.each([
    [answer({ state: 'queued' }), 'Queued'],
    [
      answer({ state: 'queued', lastError: { kind: 'offline', message: 'The bank could not be reached.' } }),
      'will retry',
    ],
    [answer({ state: 'sent' }), 'Sent'],
    [
      answer({ state: 'failed', lastError: { kind: 'invalid', message: 'text: required' } }),
      'Failed: text: required',
    ],
    [answer({ state: 'verifying' }), 'Checking with the bank'],
    [answer({ state: 'something_new' }), 'something_new'],
  ])('says the state in words (%#)', (a, text) => {
    render(<AnswerStatus answer={a} draftSavedAt={null} />);
    expect(screen.getByTestId('answer-status').textContent).toContain(text);
    expect(screen.getByTestId('answer-status').getAttribute('data-state')).toBe(a.state);
  });

  it('shows uploading with a percentage and a labelled progress bar', () => {
    const a = answer({ state: 'uploading' });
    useAnswers.setState({ progress: { [a.id]: { sentBytes: 256, totalBytes: 1024 } } });
    render(<AnswerStatus answer={a} draftSavedAt={null} />);
    expect(screen.getByTestId('answer-status').textContent).toContain('Uploading 25%');
    const bar = screen.getByRole('progressbar', { name: 'Upload of the documents' });
    expect(bar.getAttribute('aria-valuenow')).toBe('25');
  });

  it('shows a conflict with what changed', () => {
    render(
      <AnswerStatus
        answer={answer({
          state: 'conflict',
          conflict: { questionStatus: 'closed', latestStaffResponse: 'Closed by phone.', detectedAt: 'x' },
        })}
        draftSavedAt={null}
      />,
    );
    expect(screen.getByTestId('answer-status').textContent).toContain('the question is now closed');
    expect(screen.getByTestId('answer-conflict').textContent).toContain('Closed by phone.');
  });

  it('an answer written for another bank says it waits for that bank', () => {
    render(
      <AnswerStatus
        answer={answer({
          state: 'queued',
          waitingForBank: true,
          bank: { profileId: 'p_1', origin: 'https://bank-a.example', legalEntityId: 'le_a' },
        })}
        draftSavedAt={null}
      />,
    );
    const status = screen.getByTestId('answer-status');
    expect(status.textContent).toContain('Waiting for https://bank-a.example');
    expect(status.getAttribute('data-waiting-for-bank')).toBe('true');
  });

  it('without an answer: draft saved or no draft', () => {
    render(<AnswerStatus answer={undefined} draftSavedAt="2026-11-01T10:00:00.000Z" />);
    expect(screen.getByTestId('answer-status').getAttribute('data-state')).toBe('draft');
  });
});

describe('AnswerComposer', () => {
  it('saves the draft once, debounced, as the analyst types', async () => {
    vi.useFakeTimers();
    render(
      <AnswerComposer
        rfiId="rfi_1"
        profileId="p_alder"
        questionId="q_1"
        questionType="transaction.purpose"
        awaiting
        draft={undefined}
        answer={undefined}
        limits={null}
      />,
    );
    const box = screen.getByLabelText('Your answer');
    for (const v of ['F', 'Fr', 'Fre', 'Freight']) fireEvent.change(box, { target: { value: v } });
    expect(screen.getByTestId('draft-state').textContent).toBe('Saving draft…');
    expect(calls).toEqual([]);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(500);
    });
    expect(calls).toEqual([
      {
        channel: 'drafts.save',
        args: {
          profileId: 'p_alder',
          rfiId: 'rfi_1',
          questionId: 'q_1',
          questionType: 'transaction.purpose',
          text: 'Freight',
          files: [],
        },
      },
    ]);
    expect(screen.getByTestId('draft-state').textContent).toBe('Draft saved');
  });

  it('a document question has no text box but a file picker, a drop zone and the default document type', () => {
    render(
      <AnswerComposer
        rfiId="rfi_1"
        profileId="p_alder"
        questionId="q_2"
        questionType="identification.individual.passport"
        awaiting
        draft={undefined}
        answer={undefined}
        limits={null}
      />,
    );
    expect(screen.queryByLabelText('Your answer')).toBeNull();
    expect(screen.getByRole('button', { name: /Document type/ }).textContent).toContain('Passport');
    expect(screen.getByRole('button', { name: 'Choose files…' })).toBeTruthy();
    expect(screen.getByRole('group', { name: 'Documents for this answer' })).toBeTruthy();
  });

  it('files picked for an answer are staged for the profile that owns the RFI', async () => {
    const base = (globalThis as unknown as { desk: { invoke(c: string, a: unknown): Promise<unknown> } })
      .desk;
    (globalThis as { desk?: unknown }).desk = {
      ...base,
      async invoke(channel: string, args: unknown) {
        if (channel === 'files.pick') {
          calls.push({ channel, args });
          return { ok: true, value: { files: [], refused: [] } };
        }
        return base.invoke(channel, args);
      },
    };
    render(
      <AnswerComposer
        rfiId="rfi_1"
        profileId="p_birch"
        questionId="q_2"
        questionType="identification.individual.passport"
        awaiting
        draft={undefined}
        answer={undefined}
        limits={null}
      />,
    );
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Choose files…' }));
    });
    expect(calls.find((c) => c.channel === 'files.pick')?.args).toMatchObject({ profileId: 'p_birch' });
  });

  it('an answer the team holds (its rules not known here) says so in words', async () => {
    const words =
      'Not sent: Alder Trade GmbH’s approval rules are not known on this workstation yet, so this answer waits for the team server (it may need a checker).';
    approvalState = { ...solo, held: words };
    render(
      <AnswerComposer
        profileId="p_alder"
        rfiId="rfi_1"
        questionId="q_1"
        questionType="transaction.purpose"
        awaiting
        draft={undefined}
        answer={undefined}
        limits={null}
      />,
    );
    const held = await screen.findByTestId('answer-held');
    expect(held.textContent).toBe(words);
    expect(held.getAttribute('role')).toBe('status');
  });

  it('an unknown question type gets a text box and a file picker', () => {
    render(
      <AnswerComposer
        rfiId="rfi_1"
        profileId="p_alder"
        questionId="q_3"
        questionType="compliance.brand_new_type"
        awaiting
        draft={undefined}
        answer={undefined}
        limits={null}
      />,
    );
    expect(screen.getByLabelText('Your answer')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Choose files…' })).toBeTruthy();
    expect(screen.getByRole('button', { name: /Document type/ }).textContent).toContain('Other');
  });

  it('a queued answer locks the composer and shows its text', () => {
    render(
      <AnswerComposer
        rfiId="rfi_1"
        profileId="p_alder"
        questionId="q_1"
        questionType="transaction.purpose"
        awaiting
        draft={{
          rfiId: 'rfi_1',
          questionId: 'q_1',
          questionType: 'transaction.purpose',
          text: 'Because.',
          files: [],
          updatedAt: 'x',
        }}
        answer={answer({ state: 'queued' })}
        limits={null}
      />,
    );
    expect((screen.getByLabelText('Your answer') as HTMLTextAreaElement).readOnly).toBe(true);
    expect((screen.getByLabelText('Your answer') as HTMLTextAreaElement).value).toBe('Because.');
    expect(screen.queryByTestId('answer-submit')).toBeNull();
  });
});

describe('deadline clock', () => {
  const now = Date.parse('2026-11-01T00:00:00.000Z');
  it.each([
    ['2026-11-20T00:00:00.000Z', 'on_track', 'On track'],
    ['2026-11-04T00:00:00.000Z', 'at_risk', 'At risk'],
    ['2026-10-31T00:00:00.000Z', 'breached', 'Breached'],
    [null, 'none', 'No deadline'],
  ])('%s → %s in words', (deadline, band, words) => {
    const { container } = render(<DeadlineClock deadline={deadline} now={now} />);
    const el = container.querySelector('.deadline');
    expect(el?.getAttribute('data-band')).toBe(band);
    expect(el?.textContent).toContain(words);
  });

  it('formats the time left and overdue', () => {
    expect(formatLeft('2026-11-04T06:00:00.000Z', now)).toBe('3 d 6 h left');
    expect(formatLeft('2026-10-31T22:30:00.000Z', now)).toBe('overdue by 1 h 30 min');
  });
});

describe('ProgressBar', () => {
  it('says the percentage in text, and is indeterminate without a total', () => {
    const { rerender } = render(<ProgressBar value={1} max={3} label="Upload" />);
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('33');
    expect(screen.getByText('33%')).toBeTruthy();
    rerender(<ProgressBar value={0} max={0} label="Upload" />);
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBeNull();
  });
});

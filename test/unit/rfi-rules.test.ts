import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canActOnRfi,
  deriveRfiStatus,
  FINAL_STATUSES,
  isDecided,
  isFinal,
  nextQuestionStatus,
  questionDeadline,
  rfiDeadline,
  TIMEOUT_MS,
} from '../../src/shared/rfi-rules';

const ALL = ['action_required', 'pending_review', 'approved', 'rejected', 'closed', 'timeout'] as const;

describe('final statuses', () => {
  it('approved, rejected, closed and timeout are final; decided excludes timeout', () => {
    expect([...FINAL_STATUSES].sort()).toEqual(['approved', 'closed', 'rejected', 'timeout']);
    expect(isFinal('action_required')).toBe(false);
    expect(isFinal('pending_review')).toBe(false);
    expect(isFinal('something_new')).toBe(false);
    expect(isDecided('timeout')).toBe(false);
    expect(isDecided('approved')).toBe(true);
  });
});

describe('question transitions (spec 3.3)', () => {
  it('follows the table and refuses the rest', () => {
    expect(nextQuestionStatus('action_required', { kind: 'customer_response' })).toBe('pending_review');
    expect(nextQuestionStatus('pending_review', { kind: 'customer_response' })).toBeNull();
    expect(nextQuestionStatus('pending_review', { kind: 'staff_response' })).toBe('action_required');
    expect(nextQuestionStatus('action_required', { kind: 'staff_response' })).toBeNull();
    expect(nextQuestionStatus('pending_review', { kind: 'staff_action', action: 'approve' })).toBe(
      'approved',
    );
    expect(nextQuestionStatus('pending_review', { kind: 'staff_action', action: 'reject' })).toBe('rejected');
    expect(nextQuestionStatus('pending_review', { kind: 'staff_action', action: 'close' })).toBe('closed');
    expect(nextQuestionStatus('action_required', { kind: 'staff_action', action: 'approve' })).toBeNull();
    expect(nextQuestionStatus('action_required', { kind: 'timeout' })).toBe('timeout');
    expect(nextQuestionStatus('pending_review', { kind: 'timeout' })).toBe('timeout');
    for (const s of FINAL_STATUSES) {
      for (const t of [
        { kind: 'customer_response' },
        { kind: 'staff_response' },
        { kind: 'staff_action', action: 'approve' },
        { kind: 'timeout' },
      ] as const) {
        expect(nextQuestionStatus(s, t), `${s} ${t.kind}`).toBeNull();
      }
    }
  });
});

describe('derived RFI status', () => {
  it('rules 1–3', () => {
    expect(deriveRfiStatus(['action_required', 'pending_review'])).toBe('action_required');
    expect(deriveRfiStatus(['action_required', 'approved'])).toBe('action_required');
    expect(deriveRfiStatus(['pending_review', 'approved'])).toBe('pending_review');
    // every question decided but no explicit action yet: still pending_review
    expect(deriveRfiStatus(['approved', 'rejected'])).toBe('pending_review');
    expect(deriveRfiStatus(['approved'], 'approved')).toBe('approved');
    expect(deriveRfiStatus(['action_required', 'timeout'])).toBe('timeout');
    expect(deriveRfiStatus(['action_required'], 'closed')).toBe('closed');
    expect(deriveRfiStatus(['weird_new_status'])).toBe('pending_review');
  });

  it('is never approved/rejected/closed without an explicit final status', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ALL), { minLength: 1, maxLength: 8 }), (qs) => {
        const s = deriveRfiStatus(qs);
        return !['approved', 'rejected', 'closed'].includes(s);
      }),
    );
  });

  it('an RFI action is allowed only when every question is approved, rejected or closed', () => {
    expect(canActOnRfi('pending_review', ['approved', 'closed', 'rejected'])).toBe(true);
    expect(canActOnRfi('pending_review', ['approved', 'pending_review'])).toBe(false);
    expect(canActOnRfi('pending_review', ['approved', 'timeout'])).toBe(false);
    expect(canActOnRfi('approved', ['approved'])).toBe(false);
    expect(canActOnRfi('pending_review', [])).toBe(false);
  });
});

describe('deadlines', () => {
  it('a question: updated_at + 30 days, none when final; an RFI: the earliest among non-final questions', () => {
    const t = '2026-01-01T00:00:00.000Z';
    expect(questionDeadline({ status: 'action_required', updated_at: t })?.toISOString()).toBe(
      '2026-01-31T00:00:00.000Z',
    );
    expect(questionDeadline({ status: 'approved', updated_at: t })).toBeNull();
    expect(questionDeadline({ status: 'pending_review', updated_at: 'garbage' })).toBeNull();
    const rfi = {
      status: 'action_required',
      questions: [
        { status: 'pending_review', updated_at: '2026-01-05T00:00:00.000Z' },
        { status: 'action_required', updated_at: '2026-01-03T00:00:00.000Z' },
        { status: 'approved', updated_at: '2025-01-01T00:00:00.000Z' },
      ],
    };
    expect(rfiDeadline(rfi)?.getTime()).toBe(Date.parse('2026-01-03T00:00:00.000Z') + TIMEOUT_MS);
    expect(rfiDeadline({ ...rfi, status: 'approved' })).toBeNull();
    expect(
      rfiDeadline({ status: 'pending_review', questions: [{ status: 'closed', updated_at: t }] }),
    ).toBeNull();
  });
});

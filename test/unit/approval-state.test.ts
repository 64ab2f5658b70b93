/**
 * The workstation's store of the team's approvals: a list read from the team server is merged into
 * what the workstation holds, never a replacement. A list read just before this workstation's own
 * request landed (or before a decision came on the feed) must not take the approval away or back.
 */
import { describe, expect, it } from 'vitest';
import { createApprovalState, knownOf } from '../../src/main/team/approval-state';
import type { Approval } from '../../src/shared/team/schemas';

const LE = 'le_alder';
const mandate = (over: Partial<Approval> = {}): Approval => ({
  id: 'a1',
  legalEntityId: LE,
  object: { kind: 'exchange', id: 'm1' },
  contentHash: 'a'.repeat(64),
  content: {
    kind: 'exchange',
    side: 'buy',
    asset: 'ETHEREUM-USDT',
    amount: '250000000',
    worstRate: '1.0100',
  },
  maker: 'maria.keller',
  status: 'pending',
  checker: null,
  reason: null,
  requestedAt: '2026-11-27T10:00:00.000Z',
  decidedAt: null,
  ...over,
});

describe('approvals read from the team server', () => {
  it('a list read before a request landed keeps the approval the workstation holds', () => {
    const state = createApprovalState();
    const known = knownOf(state);
    state.remember(mandate());
    state.rememberAll(LE, []);
    expect(known.approvalsOf('exchange').map((a) => a.object.id)).toEqual(['m1']);
    expect(known.latest(LE, 'm1', 'exchange')?.status).toBe('pending');
  });

  it('a decision held is never taken back to pending by an older list; a newer list brings decisions', () => {
    const state = createApprovalState();
    const approved = mandate({
      status: 'approved',
      checker: 'jonas.weber',
      decidedAt: '2026-11-27T10:05:00.000Z',
    });
    state.remember(approved);
    state.rememberAll(LE, [mandate()]);
    expect(state.latest(LE, 'm1', 'exchange')).toEqual(approved);

    const other = createApprovalState();
    other.remember(mandate());
    const rejected = mandate({ status: 'rejected', checker: 'jonas.weber', reason: 'Too much at once' });
    other.rememberAll(LE, [rejected]);
    expect(other.latest(LE, 'm1', 'exchange')).toEqual(rejected);
  });

  it('each entity is merged on its own', () => {
    const state = createApprovalState();
    state.remember(mandate());
    state.rememberAll('le_birch', [
      mandate({ id: 'b1', legalEntityId: 'le_birch', object: { kind: 'exchange', id: 'm2' } }),
    ]);
    expect(
      knownOf(state)
        .approvalsOf('exchange')
        .map((a) => [a.legalEntityId, a.object.id]),
    ).toEqual([
      [LE, 'm1'],
      ['le_birch', 'm2'],
    ]);
  });
});

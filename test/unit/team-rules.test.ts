import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/shared/team/canonical';
import type { ApprovalContent, ApprovalRule } from '../../src/shared/team/schemas';
import { approvalRequired } from '../../src/team-server/approval-rules';

describe('canonical JSON (what content hashes are taken over)', () => {
  it('sorts keys at every depth, keeps array order, drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' }, u: undefined })).toBe(
      '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    expect(canonicalJson([undefined, null, 'é'])).toBe('[null,null,"é"]');
    expect(canonicalJson(12n)).toBe('"12"');
  });
});

describe('approval rules', () => {
  const answer = (rfiType: string): ApprovalContent => ({
    kind: 'rfi_answer',
    rfiId: 'r1',
    rfiType,
    text: 't',
    documentSha256s: [],
  });
  const ret = (amount: string): ApprovalContent => ({
    kind: 'return',
    transactionId: 't1',
    amount,
    currency: 'USD',
    reason: 'duplicate',
  });
  const exchange = (amount: string): ApprovalContent => ({
    kind: 'exchange',
    side: 'buy',
    asset: 'ETHEREUM-USDT',
    amount,
    worstRate: '0.998',
  });

  it('an answer needs a checker under an all-answers rule or a rule for its type only', () => {
    const byType: ApprovalRule[] = [{ kind: 'rfi_answer', rfiType: 'source_of_funds' }];
    expect(approvalRequired(byType, answer('source_of_funds'))).toBe(true);
    expect(approvalRequired(byType, answer('kyc_refresh'))).toBe(false);
    expect(approvalRequired([{ kind: 'rfi_answer', rfiType: null }], answer('kyc_refresh'))).toBe(true);
    expect(approvalRequired([], answer('kyc_refresh'))).toBe(false);
  });

  it('returns and exchanges above the amount need one, compared as integers beyond 2^53', () => {
    const rules: ApprovalRule[] = [
      { kind: 'return', above: '9007199254740993' },
      { kind: 'exchange', above: '0' },
    ];
    expect(approvalRequired(rules, ret('9007199254740993'))).toBe(false);
    expect(approvalRequired(rules, ret('9007199254740994'))).toBe(true);
    expect(approvalRequired(rules, exchange('1'))).toBe(true);
    expect(approvalRequired([{ kind: 'return', above: '100' }], exchange('1000'))).toBe(false);
  });
});

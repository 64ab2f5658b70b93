import { describe, expect, it } from 'vitest';
import { teamActivityWords } from '../../src/main/team/activity';
import type { ActivityEntry } from '../../src/shared/team/schemas';

const names: Record<string, string> = { 'maria.keller': 'Maria Keller' };
const entry = (action: string, kind: string, detail: Record<string, string> = {}): ActivityEntry =>
  ({
    seq: 1,
    at: '2026-11-27T10:00:00.000Z',
    actor: 'jonas.weber',
    legalEntityId: 'le_1',
    action,
    object: { kind, id: 'obj_1' },
    detail,
    prevHash: '0'.repeat(64),
    hash: '1'.repeat(64),
  }) as ActivityEntry;
const words = (e: ActivityEntry) =>
  teamActivityWords(
    e,
    (s) => names[s] ?? s,
    (t) => t,
  );

describe('the team log in words: the four-eyes trail and how a send ended', () => {
  it('names what was asked, approved or rejected, the maker by name and the reason', () => {
    expect(words(entry('approval.requested', 'rfi_answer'))).toBe('Asked a checker to approve the answer');
    expect(words(entry('approval.approved', 'return', { maker: 'maria.keller' }))).toBe(
      'Approved the return made by Maria Keller',
    );
    expect(words(entry('approval.rejected', 'exchange', { reason: 'Rate too low' }))).toBe(
      'Rejected an exchange mandate: Rate too low',
    );
  });

  it('says a send reached the bank, or why it did not', () => {
    expect(words(entry('send.sent', 'rfi_answer', { bankReference: 'resp_1' }))).toBe(
      'Sent the approved answer to the bank',
    );
    expect(words(entry('send.conflict', 'rfi_answer', { reason: 'the question is closed' }))).toBe(
      'The approved answer was not sent: the question is closed',
    );
    expect(words(entry('send.failed', 'return'))).toBe('The approved return was not sent');
  });
});

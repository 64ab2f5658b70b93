import { describe, expect, it } from 'vitest';
import { TeamApiError } from '../../src/main/team/api';
import { approvalFailure } from '../../src/main/team/approvals';

/** One mapping of the team server's refusals for every approval flow, in the words of what is approved. */
describe('approvalFailure', () => {
  const thrown = (f: () => never): unknown => {
    try {
      f();
    } catch (err) {
      return err;
    }
    return null;
  };

  it('names what is approved in its words, with one typed kind per refusal', () => {
    const self = new TeamApiError(409, 'self_approval', 'self');
    const changed = new TeamApiError(409, 'content_changed', 'changed');
    const required = new TeamApiError(409, 'approval_required', 'needs a checker');
    expect(thrown(() => approvalFailure('mandate')(self))).toMatchObject({
      kind: 'forbidden',
      reason: 'SELF_APPROVAL',
      message: 'The team server refused: nobody approves their own mandate. Another checker has to decide.',
    });
    expect(thrown(() => approvalFailure('return')(changed))).toMatchObject({
      kind: 'conflict',
      message: 'The return changed since it was read: read it again before deciding.',
    });
    expect(thrown(() => approvalFailure('answer')(required))).toMatchObject({
      kind: 'precondition',
      reason: 'APPROVAL_REQUIRED',
      message: 'needs a checker',
    });
  });

  it('passes an error that is not the team server’s through unchanged', () => {
    const other = new Error('disk full');
    expect(thrown(() => approvalFailure('answer')(other))).toBe(other);
  });
});

import { describe, expect, it } from 'vitest';
import { appErrorKinds } from '../../src/shared/ipc/errors';
import type { AppErrorKind } from '../../src/shared/ipc/errors';
import {
  auditOutcomeOf,
  classifyFailure,
  isTransientRead,
  keepsIdempotencyKey,
  maySendAgain,
} from '../../src/shared/failure-policy';
import type { FailureClass } from '../../src/shared/failure-policy';

/** Every kind, for a read and for a write (`invalid` as a 400 refusal; the unreadable 2xx below). */
const expected: Record<AppErrorKind, { read: FailureClass; write: FailureClass }> = {
  invalid_argument: { read: 'refused', write: 'refused' },
  forbidden_sender: { read: 'refused', write: 'refused' },
  unknown_channel: { read: 'refused', write: 'refused' },
  offline: { read: 'transient', write: 'ambiguous' },
  unauthenticated: { read: 'refused', write: 'transient' },
  forbidden: { read: 'refused', write: 'refused' },
  not_found: { read: 'refused', write: 'refused' },
  precondition: { read: 'refused', write: 'refused' },
  invalid: { read: 'refused', write: 'refused' },
  conflict: { read: 'refused', write: 'ambiguous' },
  rate_limited: { read: 'transient', write: 'transient' },
  server: { read: 'transient', write: 'ambiguous' },
  keychain_unavailable: { read: 'refused', write: 'refused' },
  not_approved: { read: 'refused', write: 'refused' },
  local: { read: 'refused', write: 'refused' },
  internal: { read: 'refused', write: 'ambiguous' },
};

const statusOf: Partial<Record<AppErrorKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition: 422,
  rate_limited: 429,
  server: 503,
};

describe('failure policy', () => {
  it('has an expectation for every AppError kind', () => {
    expect(Object.keys(expected).sort()).toEqual([...appErrorKinds].sort());
  });

  for (const kind of appErrorKinds) {
    for (const call of ['read', 'write'] as const) {
      it(`${kind} on a ${call} is ${expected[kind][call]}`, () => {
        const status = statusOf[kind];
        expect(classifyFailure({ kind, ...(status !== undefined ? { status } : {}) }, call)).toBe(
          expected[kind][call],
        );
      });
    }
  }

  it('a 2xx answer that could not be read is ambiguous for a write, refused for a read', () => {
    for (const status of [200, 201, undefined]) {
      const e = { kind: 'invalid' as const, ...(status !== undefined ? { status } : {}) };
      expect(classifyFailure(e, 'write')).toBe('ambiguous');
      expect(classifyFailure(e, 'read')).toBe('refused');
    }
    expect(classifyFailure({ kind: 'invalid', status: 413 }, 'write')).toBe('refused');
  });

  it('the ledger, the audit and the renderer agree: the key is kept exactly when the write was not refused', () => {
    for (const kind of appErrorKinds) {
      const e = { kind, ...(statusOf[kind] !== undefined ? { status: statusOf[kind] } : {}) };
      const kept = expected[kind].write !== 'refused';
      expect(keepsIdempotencyKey(e)).toBe(kept);
      expect(auditOutcomeOf(e)).toBe(kept ? 'pending' : 'failed');
      expect(maySendAgain(e)).toBe(kept);
      expect(isTransientRead(e)).toBe(expected[kind].read === 'transient');
    }
  });
});

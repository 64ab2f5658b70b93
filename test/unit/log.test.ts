import { describe, expect, it } from 'vitest';
import { createLogger, memorySink } from '../../src/main/infra/log';

describe('logger redaction', () => {
  it('never writes a registered secret, a bearer value or a token-named field', () => {
    const sink = memorySink();
    const log = createLogger(sink, 'debug');
    const token = 'sk_sandbox_0123456789abcdef';
    log.addSecret(token);
    log.info(`calling with ${token}`);
    log.warn('headers', {
      authorization: `Bearer ${token}`,
      nested: { accessToken: 'zzz', note: `x ${token} y` },
    });
    log.error('failed', new Error(`401 for Bearer abc.def-ghi`));
    const text = JSON.stringify(sink.records);
    expect(text).not.toContain(token);
    expect(text).not.toContain('abc.def-ghi');
    expect(text).not.toContain('zzz');
    expect(sink.records).toHaveLength(3);
  });

  it('respects the minimum level and serialises bigint', () => {
    const sink = memorySink();
    const log = createLogger(sink, 'warn');
    log.info('hidden');
    log.warn('shown', { amount: 10n });
    expect(sink.records.map((r) => r.message)).toEqual(['shown']);
    expect(sink.records[0]?.data).toEqual({ amount: '10' });
  });
});

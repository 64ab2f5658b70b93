import { describe, expect, it } from 'vitest';
import { Rfi } from '../../src/shared/api';

/**
 * The client must stay robust against a real bank that differs from the sandbox (api-gaps):
 * fields the spec does not name may be missing, and unknown values and extra fields pass through.
 */
describe('RFI wire schema tolerance', () => {
  it('parses an RFI with only the fields the spec names, defaulting the rest', () => {
    const minimal = {
      id: 'rfi_1',
      type: 'transaction',
      status: 'action_required',
      created_at: '2026-11-01T10:00:00.000Z',
      updated_at: '2026-11-02T10:00:00.000Z',
      questions: [
        {
          id: 'q_1',
          status: 'action_required',
          question_type: 'transaction.purpose',
          created_at: '2026-11-01T10:00:00.000Z',
          updated_at: '2026-11-02T10:00:00.000Z',
        },
      ],
    };
    const parsed = Rfi.parse(minimal);
    expect(parsed.description).toBe('');
    expect(parsed.related_id).toBe('');
    expect(parsed.questions[0]?.question_data).toEqual({ question_text: '', comment: '', document_ids: [] });
    expect(parsed.questions[0]?.responses).toEqual([]);
  });

  it('keeps unknown statuses, types and extra fields as they are', () => {
    const parsed = Rfi.parse({
      id: 'rfi_2',
      type: 'brand_new_type',
      status: 'escalated',
      created_at: '2026-11-01T10:00:00.000Z',
      updated_at: '2026-11-02T10:00:00.000Z',
      questions: [],
      priority: 'high',
    });
    expect(parsed.type).toBe('brand_new_type');
    expect(parsed.status).toBe('escalated');
    expect((parsed as Record<string, unknown>)['priority']).toBe('high');
  });

  it('still refuses an RFI without the fields the spec requires', () => {
    expect(Rfi.safeParse({ id: 'rfi_3', type: 'transaction', questions: [] }).success).toBe(false);
  });
});

/** RFIs, their questions and responses, the staff side and the timeout (spec 3.3). */
import { questionTypeInfo } from '../../shared/catalogue';
import {
  actionStatus,
  canActOnRfi,
  deriveRfiStatus,
  isFinal,
  nextQuestionStatus,
  rfiDeadline,
  type QuestionAction,
} from '../../shared/rfi-rules';
import type { ListRfisQuery, RfiResponseRequest } from '../../shared/api';
import { iso } from '../clock';
import { badRequest, notFound, precondition } from '../errors';
import type { Credential, Question, RfiRec, RfiResp } from '../model';
import type { BankState } from './state';

export class Rfis {
  constructor(private readonly s: BankState) {}

  private ownerOf(relatedId: string): string | undefined {
    return this.s.accounts.get(relatedId)?.legalEntityId ?? this.s.txns.get(relatedId)?.legalEntityId;
  }

  createRfi(
    input: {
      legal_entity_id?: string;
      type: string;
      related_id: string;
      description?: string;
      questions: { question_type: string; question_text: string; comment?: string }[];
    },
    opts: { createdAt?: number; emit?: boolean } = {},
  ): RfiRec {
    let leId = input.legal_entity_id;
    if (leId !== undefined) {
      if (!this.s.legalEntityById.has(leId)) throw notFound(`legal_entity_id: no legal entity ${leId}`);
    } else {
      leId = this.ownerOf(input.related_id);
      if (!leId) {
        throw badRequest('legal_entity_id: required when related_id is not a known account or transaction');
      }
    }
    const at = opts.createdAt ?? this.s.now();
    const id = this.s.ids.id('rfi');
    const rfi: RfiRec = {
      id,
      seq: this.s.rfiSeq++,
      type: input.type,
      relatedId: input.related_id,
      legalEntityId: leId,
      description: input.description ?? '',
      status: 'action_required',
      createdAt: at,
      updatedAt: at,
      questions: input.questions.map((q) => ({
        id: this.s.ids.id('rfq'),
        status: 'action_required',
        questionType: q.question_type,
        questionText: q.question_text,
        comment: q.comment ?? '',
        documentIds: [],
        createdAt: at,
        updatedAt: at,
        responses: [],
      })),
      json: null,
    };
    this.insertRfi(rfi);
    if (opts.emit !== false) {
      this.s.events(leId, 'rfi.action_required', { rfi_id: id, status: rfi.status });
      for (const q of rfi.questions) {
        this.s.events(leId, 'rfi.question.action_required', {
          rfi_id: id,
          question_id: q.id,
          status: q.status,
        });
      }
    }
    this.scheduleTimeout(rfi);
    return rfi;
  }

  private insertRfi(rfi: RfiRec): void {
    this.s.rfis.set(rfi.id, rfi);
    const list = this.s.rfisByLe.get(rfi.legalEntityId);
    if (list) list.push(rfi);
  }

  bulkRfis(count: number, legalEntityId?: string): { created: number; first_id: string; last_id: string } {
    const le =
      legalEntityId !== undefined ? this.s.legalEntityById.get(legalEntityId) : this.s.legalEntities[0];
    if (!le) throw notFound(`legal_entity_id: no legal entity ${legalEntityId ?? ''}`);
    const related = le.accountIds[0] ?? le.id;
    const types = ['transaction', 'account', 'nominal_sub_account_kyc', 'segment_upgrade'];
    let first = '';
    let last = '';
    for (let i = 0; i < count; i++) {
      const type = types[i % types.length] ?? 'account';
      const rfi = this.createRfi(
        {
          legal_entity_id: le.id,
          type,
          related_id: related,
          description: `Bulk RFI ${i + 1}`,
          questions:
            i % 2 === 0
              ? [
                  {
                    question_type: 'transaction.purpose',
                    question_text: 'What is the purpose of this payment?',
                  },
                ]
              : [
                  {
                    question_type: 'transaction.source_of_funds',
                    question_text: 'Where do the funds come from?',
                  },
                  {
                    question_type: 'transaction.supporting_documents',
                    question_text: 'Please upload the invoice.',
                  },
                ],
        },
        { emit: false },
      );
      if (i === 0) first = rfi.id;
      last = rfi.id;
    }
    return { created: count, first_id: first, last_id: last };
  }

  scheduleTimeout(rfi: RfiRec): void {
    const d = rfiDeadline(this.rfiView(rfi));
    if (d) this.s.scheduler.at(d.getTime(), () => this.timeoutIfDue(rfi));
  }

  private rfiView(rfi: RfiRec): { status: string; questions: { status: string; updated_at: string }[] } {
    return {
      status: rfi.status,
      questions: rfi.questions.map((q) => ({ status: q.status, updated_at: iso(q.updatedAt) })),
    };
  }

  /** When an RFI's deadline has passed, every non-final question and the RFI time out. */
  timeoutIfDue(rfi: RfiRec): void {
    const d = rfiDeadline(this.rfiView(rfi));
    if (!d || d.getTime() > this.s.now()) return;
    const at = d.getTime();
    const changed: Question[] = [];
    for (const q of rfi.questions) {
      const next = nextQuestionStatus(q.status, { kind: 'timeout' });
      if (!next) continue;
      q.status = next;
      q.updatedAt = at;
      q.responses.push(
        this.newResponse(q, 'system', 'No response within 30 days of the last update.', [], at),
      );
      changed.push(q);
    }
    this.afterQuestionChange(rfi, changed, at);
  }

  newResponse(
    q: Question,
    responderType: RfiResp['responderType'],
    text: string,
    documentIds: string[],
    at: number,
  ): RfiResp {
    return {
      id: this.s.ids.id('rsp'),
      questionId: q.id,
      responderType,
      questionType: q.questionType,
      text,
      documentIds,
      createdAt: at,
      updatedAt: at,
    };
  }

  /** Recomputes the RFI status, emits question and RFI events, reschedules the timeout. */
  private afterQuestionChange(rfi: RfiRec, changed: Question[], at: number, explicit?: string): void {
    const before = rfi.status;
    rfi.status =
      explicit ??
      deriveRfiStatus(
        rfi.questions.map((q) => q.status),
        before,
      );
    rfi.updatedAt = at;
    rfi.json = null;
    for (const q of changed) {
      this.s.events(rfi.legalEntityId, `rfi.question.${q.status}`, {
        rfi_id: rfi.id,
        question_id: q.id,
        status: q.status,
      });
    }
    if (rfi.status !== before) {
      this.s.events(rfi.legalEntityId, `rfi.${rfi.status}`, { rfi_id: rfi.id, status: rfi.status });
    }
    this.scheduleTimeout(rfi);
  }

  ownRfi(cred: Credential, id: string): RfiRec {
    const rfi = this.s.rfis.get(id);
    if (!rfi || rfi.legalEntityId !== cred.legalEntityId) throw notFound(`RFI ${id} not found`);
    return rfi;
  }

  anyRfi(id: string): RfiRec {
    const rfi = this.s.rfis.get(id);
    if (!rfi) throw notFound(`RFI ${id} not found`);
    return rfi;
  }

  private question(rfi: RfiRec, qid: string): Question {
    const q = rfi.questions.find((x) => x.id === qid);
    if (!q) throw notFound(`question ${qid} not found in RFI ${rfi.id}`);
    return q;
  }

  submitResponse(cred: Credential, rfiId: string, qid: string, body: RfiResponseRequest): RfiResp {
    const rfi = this.ownRfi(cred, rfiId);
    const q = this.question(rfi, qid);
    const qt = body.question_type;
    if (qt !== q.questionType) {
      throw badRequest(`question_type: must be ${q.questionType} for question ${q.id}`);
    }
    const content = (body as Record<string, unknown>)[qt] as {
      response_text: string;
      document_ids: string[];
    };
    if (q.status !== 'action_required' || isFinal(rfi.status)) {
      throw precondition(
        'QUESTION_NOT_AWAITING_RESPONSE',
        `question ${q.id} is ${q.status}; a response is accepted only while it is action_required`,
      );
    }
    const info = questionTypeInfo(qt);
    const text = content.response_text;
    const docs = content.document_ids;
    if (new Set(docs).size !== docs.length) throw badRequest(`${qt}.document_ids: duplicate document id`);
    if (info.expects === 'text') {
      if (text.trim() === '') throw badRequest(`${qt}.response_text: required for a text question`);
      if (docs.length > 0) throw badRequest(`${qt}.document_ids: must be empty for a text question`);
    } else if (info.expects === 'documents') {
      if (docs.length === 0) throw badRequest(`${qt}.document_ids: at least one document is required`);
      if (text !== '') throw badRequest(`${qt}.response_text: must be empty for a document question`);
    } else if (text.trim() === '' && docs.length === 0) {
      throw badRequest(`${qt}: a response needs a response_text or document_ids`);
    }
    for (const d of docs) {
      const doc = this.s.docs.get(d);
      if (!doc || !doc.uploaded || doc.relatedId !== rfi.id || doc.legalEntityId !== cred.legalEntityId) {
        throw precondition(
          'DOCUMENT_NOT_UPLOADED',
          `${qt}.document_ids: document ${d} is not uploaded for RFI ${rfi.id}`,
        );
      }
    }
    const at = this.s.now();
    const resp = this.newResponse(q, 'customer', text, [...docs], at);
    for (const d of docs) {
      const doc = this.s.docs.get(d);
      if (doc) doc.usedBy = resp.id;
    }
    q.responses.push(resp);
    q.documentIds.push(...docs);
    q.status = nextQuestionStatus(q.status, { kind: 'customer_response' }) ?? q.status;
    q.updatedAt = at;
    this.afterQuestionChange(rfi, [q], at);
    return resp;
  }

  staffQuestionAction(rfiId: string, qid: string, action: QuestionAction, text?: string): RfiRec {
    const rfi = this.anyRfi(rfiId);
    const q = this.question(rfi, qid);
    if (isFinal(rfi.status)) throw precondition('RFI_ALREADY_FINAL', `RFI ${rfi.id} is ${rfi.status}`);
    const next = nextQuestionStatus(q.status, { kind: 'staff_action', action });
    if (!next) {
      throw precondition(
        'QUESTION_NOT_PENDING_REVIEW',
        `question ${q.id} is ${q.status}, not pending_review`,
      );
    }
    const at = this.s.now();
    if (text !== undefined && text !== '') q.responses.push(this.newResponse(q, 'staff', text, [], at));
    q.status = next;
    q.updatedAt = at;
    this.afterQuestionChange(rfi, [q], at);
    return rfi;
  }

  staffAdminResponse(rfiId: string, qid: string, text: string, documentIds: string[]): RfiRec {
    const rfi = this.anyRfi(rfiId);
    const q = this.question(rfi, qid);
    if (isFinal(rfi.status)) throw precondition('RFI_ALREADY_FINAL', `RFI ${rfi.id} is ${rfi.status}`);
    const next = nextQuestionStatus(q.status, { kind: 'staff_response' });
    if (!next) {
      throw precondition(
        'QUESTION_NOT_PENDING_REVIEW',
        `question ${q.id} is ${q.status}, not pending_review`,
      );
    }
    const at = this.s.now();
    q.responses.push(this.newResponse(q, 'staff', text, [...documentIds], at));
    q.status = next;
    q.updatedAt = at;
    this.afterQuestionChange(rfi, [q], at);
    return rfi;
  }

  staffRfiAction(rfiId: string, action: QuestionAction): RfiRec {
    const rfi = this.anyRfi(rfiId);
    if (isFinal(rfi.status))
      throw precondition('RFI_ALREADY_FINAL', `RFI ${rfi.id} is already ${rfi.status}`);
    const statuses = rfi.questions.map((q) => q.status);
    if (!canActOnRfi(rfi.status, statuses)) {
      throw precondition(
        'QUESTIONS_NOT_FINAL',
        `every question must be approved, rejected or closed first (now: ${statuses.join(', ')})`,
      );
    }
    this.afterQuestionChange(rfi, [], this.s.now(), actionStatus(action));
    return rfi;
  }

  rfiJson(rfi: RfiRec): string {
    if (rfi.json === null) rfi.json = JSON.stringify(this.serializeRfi(rfi));
    return rfi.json;
  }

  serializeRfi(rfi: RfiRec): Record<string, unknown> {
    return {
      id: rfi.id,
      type: rfi.type,
      related_id: rfi.relatedId,
      legal_entity_id: rfi.legalEntityId,
      description: rfi.description,
      status: rfi.status,
      created_at: iso(rfi.createdAt),
      updated_at: iso(rfi.updatedAt),
      questions: rfi.questions.map((q) => ({
        id: q.id,
        status: q.status,
        question_type: q.questionType,
        question_data: {
          question_text: q.questionText,
          comment: q.comment,
          document_ids: [...q.documentIds],
        },
        created_at: iso(q.createdAt),
        updated_at: iso(q.updatedAt),
        responses: q.responses.map((r) => serializeResponse(r)),
      })),
    };
  }

  /** GET /v1/rfis: the page as a JSON string (cached RFI JSON concatenated). */
  listRfis(cred: Credential, query: ListRfisQuery): string {
    const pageSize = query.page_size !== undefined ? Number.parseInt(query.page_size, 10) : 100;
    let after = -1;
    if (query.page_token !== undefined) {
      const m = /^p([0-9]{1,10})$/.exec(query.page_token);
      if (!m?.[1]) throw badRequest('page_token: invalid page token');
      after = Number.parseInt(m[1], 10);
    }
    const types = query.types !== undefined ? new Set(query.types.split(',')) : null;
    const statuses = query.status !== undefined ? new Set(query.status.split(',')) : null;
    const since = query.updated_since !== undefined ? Date.parse(query.updated_since) : null;
    const related = query.related_id;
    let source: RfiRec[];
    if (query.ids !== undefined) {
      source = [...new Set(query.ids.split(','))]
        .map((id) => this.s.rfis.get(id))
        .filter((r): r is RfiRec => r !== undefined && r.legalEntityId === cred.legalEntityId)
        .sort((a, b) => a.seq - b.seq);
    } else {
      source = this.s.rfisByLe.get(cred.legalEntityId) ?? [];
    }
    // first index with seq > after (source is ordered by seq)
    let lo = 0;
    let hi = source.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((source[mid]?.seq ?? Infinity) <= after) lo = mid + 1;
      else hi = mid;
    }
    const parts: string[] = [];
    let lastSeq = -1;
    let more = false;
    for (let i = lo; i < source.length; i++) {
      const r = source[i];
      if (!r) break;
      if (types && !types.has(r.type)) continue;
      if (statuses && !statuses.has(r.status)) continue;
      if (related !== undefined && r.relatedId !== related) continue;
      if (since !== null && !(r.updatedAt > since)) continue;
      if (parts.length === pageSize) {
        more = true;
        break;
      }
      parts.push(this.rfiJson(r));
      lastSeq = r.seq;
    }
    const next = more ? JSON.stringify(`p${lastSeq}`) : 'null';
    return `{"data":[${parts.join(',')}],"next_page_token":${next}}`;
  }
}

export function serializeResponse(r: RfiResp): Record<string, unknown> {
  return {
    id: r.id,
    question_id: r.questionId,
    responder_type: r.responderType,
    response: { [r.questionType]: { response_text: r.text, document_ids: [...r.documentIds] } },
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  };
}

/**
 * Four-eyes approval of exchange orders as mandates. When a legal entity's rule wants a checker
 * for exchanges above an amount, what a checker approves is a mandate: the side, the asset asked
 * for, the amount (integer minor units of that asset) and the worst acceptable rate (the bank's
 * `customer_rate`: units of the quote asset for one unit of the base asset). A quote inside an
 * approved mandate may be confirmed before it expires; one outside it (a worse rate, another side,
 * asset or amount) is refused before the bank is called. A mandate is used once: its confirm is
 * the mandate's send job (one idempotency key, one lease), reported with the order's transaction.
 *
 * The mandates are the approvals the answers' approvals load and follow (one request per legal
 * entity feeds every kind). A confirm needs the team server and the bank at that moment.
 */
import { randomUUID } from 'node:crypto';
import type { OrderView } from '../../shared/ipc/channels/crypto';
import type { MandateView } from '../../shared/ipc/channels/team-mandates';
import { AppFailure } from '../../shared/ipc/errors';
import { approvalRequired } from '../../shared/team/approval-rules';
import type { Approval, ApprovalContent, ApprovalRule, SendJob } from '../../shared/team/schemas';
import type { Logger } from '../infra/log';
import type { TeamHttp } from './api';
import { sendApprovalChange, standingApproval, type StandingApproval } from './approval-state';
import {
  approvalChange,
  approvalFailure,
  approvalHash,
  queuedWords,
  type SharedApprovals,
} from './approvals';
import { completeSendJob, leaseSendJob, sendUnderLease, type SendJobLeaseDeps } from './send-job-lease';

export type MandateContent = Extract<ApprovalContent, { kind: 'exchange' }>;

/** An order as the renderer names it: the profile that owns it and its id. */
export interface OrderRef {
  profileId: string;
  orderId: string;
}

export interface ExchangeMandatesDeps {
  http: TeamHttp;
  /** The team's approvals and send jobs as the answers' approvals load and follow them. */
  approvals: SharedApprovals;
  log: Logger;
  analyst(): {
    subject: string;
    memberships: ReadonlyArray<{ legalEntityId: string; legalEntityName: string; roles: readonly string[] }>;
  } | null;
  nameOf(legalEntityId: string, subject: string): string;
  rulesOf(legalEntityId: string): ApprovalRule[] | null;
  /** The legal entity the profile's credential belongs to (what the bank said); null when unknown. */
  entityOf(profileId: string): Promise<string | null>;
  /** The order as main holds it (read through its owning profile). */
  order(ref: OrderRef): Promise<OrderView>;
  /** The crypto service's guarded confirm through the owning profile. */
  confirm(ref: OrderRef): Promise<OrderView>;
  /**
   * Whether the bank holds a quote as confirmed, read through the profile (any quote of its legal
   * entity, made on this workstation or another): a mandate's earlier confirm whose outcome was
   * not known is read before another is sent under it.
   */
  confirmedAtBank(profileId: string, transactionId: string): Promise<boolean>;
  workstation: string;
  /** The workstation's send leases: the mandate's lease is kept while the bank confirms. */
  leases: SendJobLeaseDeps['leases'];
  onChange(): void;
}

export interface ExchangeMandates {
  list(): MandateView[];
  ask(input: { profileId: string } & Omit<MandateContent, 'kind'>): Promise<MandateView>;
  decide(
    input: { profileId: string; approvalId: string; contentHash: string } & (
      { decision: 'approve' } | { decision: 'reject'; reason: string }
    ),
  ): Promise<MandateView>;
  /** crypto.confirm with the rule in front: direct when the team has no say, else inside a mandate. */
  confirm(ref: OrderRef, direct: () => Promise<OrderView>): Promise<OrderView>;
}

/** A decimal string as an integer scaled by 10^18 (exact; never a float). */
function scaled(rate: string): bigint {
  const [whole = '0', frac = ''] = rate.split('.');
  return BigInt(whole) * 10n ** 18n + BigInt((frac + '0'.repeat(18)).slice(0, 18));
}

/** Why an order is outside a mandate, in words (null: inside it). */
export function outsideMandate(
  m: MandateContent,
  o: { side: string; asset: string; amount: string; rate: string | null },
): string | null {
  if (o.side !== m.side) return `the mandate is to ${m.side}, the order is to ${o.side}`;
  if (o.asset !== m.asset) return `the mandate is for ${m.asset}, the order asks for ${o.asset}`;
  if (o.amount !== m.amount) return 'the order’s amount is not the mandate’s amount';
  if (o.rate === null || !/^\d+(\.\d+)?$/.test(o.rate)) return 'the bank has not quoted a rate yet';
  const worse =
    m.side === 'buy' ? scaled(o.rate) > scaled(m.worstRate) : scaled(o.rate) < scaled(m.worstRate);
  if (worse)
    return `the quoted rate ${o.rate} is worse than the mandate’s worst acceptable rate ${m.worstRate}`;
  return null;
}

const failure = approvalFailure('mandate');

function mandateView(
  deps: Pick<ExchangeMandatesDeps, 'analyst' | 'nameOf'>,
  a: StandingApproval,
): MandateView {
  const me = deps.analyst();
  const person = (subject: string) => ({
    subject,
    name: deps.nameOf(a.legalEntityId, subject),
    isYou: subject === me?.subject,
  });
  const c = a.content as MandateContent;
  const maker = person(a.maker);
  const checker = a.checker ? person(a.checker) : null;
  const by = checker ? (checker.isYou ? 'you' : checker.name) : 'a checker';
  const used = a.send?.status === 'done';
  const words =
    queuedWords(a.queued, a.reason) ??
    (used
      ? `Approved by ${by}; used for an exchange confirmed at the bank.`
      : a.status === 'pending'
        ? maker.isYou
          ? 'Waiting for approval by a checker.'
          : `${maker.name} asks for your approval.`
        : a.status === 'approved'
          ? `Approved by ${by}: a quote inside it may be confirmed.`
          : a.status === 'rejected'
            ? `Rejected by ${by}: ${a.reason ?? ''}`
            : 'Cleared.');
  const roles = me?.memberships.find((m) => m.legalEntityId === a.legalEntityId)?.roles ?? [];
  return {
    id: a.objectId,
    legalEntityId: a.legalEntityId,
    legalEntityName: me?.memberships.find((m) => m.legalEntityId === a.legalEntityId)?.legalEntityName ?? '',
    approvalId: a.approvalId,
    queued: a.queued,
    status: a.status,
    contentHash: a.contentHash,
    side: c.side,
    asset: c.asset,
    amount: c.amount,
    worstRate: c.worstRate,
    maker,
    checker,
    reason: a.reason,
    mayDecide: !a.queued && a.status === 'pending' && a.maker !== me?.subject && roles.includes('checker'),
    used,
    words,
  };
}

/** The mandate's send job leased here, the confirm under its lease, and its outcome under the lease number. */
/**
 * A mandate's earlier confirm whose outcome was not known (its answer lost, its workstation gone):
 * read at the bank before anything else is sent under the mandate, so a mandate never pays twice.
 * Confirmed there: the job is done with that quote's reference ('sent'). Not confirmed: 'clear'.
 * Not readable now: the lease is let go as it was, and the analyst is told to try again.
 */
async function earlierConfirm(
  deps: ExchangeMandatesDeps,
  lease: SendJobLeaseDeps,
  job: SendJob,
  profileId: string,
): Promise<'sent' | 'clear'> {
  if (!job.verifyFirst || !job.bankReference) return 'clear';
  let confirmed: boolean;
  try {
    confirmed = await deps.confirmedAtBank(profileId, job.bankReference);
  } catch (err) {
    await completeSendJob(lease, job, 'unsent', undefined, 'an exchange confirm');
    throw new AppFailure(
      {
        kind: 'offline',
        message:
          'This mandate’s earlier exchange could not be read at the bank, so nothing was sent under it. Try again in a moment.',
      },
      { cause: err },
    );
  }
  if (!confirmed) return 'clear';
  await completeSendJob(lease, job, 'sent', job.bankReference, 'an exchange confirm');
  deps.onChange();
  return 'sent';
}

async function confirmInMandate(
  deps: ExchangeMandatesDeps,
  a: Approval,
  ref: OrderRef,
  transactionId: string | null,
): Promise<OrderView> {
  const lease: SendJobLeaseDeps = {
    http: deps.http,
    log: deps.log,
    me: () => deps.analyst()?.subject ?? null,
    workstation: deps.workstation,
    remember: (j) => deps.approvals.rememberJob(j),
    leases: deps.leases,
  };
  let job: SendJob;
  try {
    // A mandate is used once: even a lease this analyst holds is asked for again (the server decides).
    job = await leaseSendJob(
      lease,
      { legalEntityId: a.legalEntityId, objectId: a.object.id, content: a.content },
      false,
    );
  } catch (err) {
    return failure(err);
  }
  if (job.status !== 'leased' || job.leasedBy !== deps.analyst()?.subject)
    throw new AppFailure({
      kind: 'conflict',
      reason: 'MANDATE_USED',
      message: 'This mandate was used for another exchange already (or is being used now). Nothing was sent.',
    });
  const earlier = await earlierConfirm(deps, lease, job, ref.profileId);
  if (earlier === 'sent' && job.bankReference === transactionId) return deps.order(ref);
  if (earlier === 'sent')
    throw new AppFailure({
      kind: 'conflict',
      reason: 'MANDATE_USED',
      message:
        'This mandate’s earlier exchange went through at the bank (its answer had not come back): the mandate is used. Nothing was sent.',
    });
  try {
    return await sendUnderLease(lease, job, {
      what: 'an exchange confirm',
      write: () => deps.confirm(ref),
      reference: (view) => view.transactionId ?? undefined,
      ...(transactionId ? { attempted: transactionId } : {}),
      // The guard refused before sending (expired, too close): the mandate stays usable.
      refusedBefore: (err) => err instanceof AppFailure && ['precondition', 'forbidden'].includes(err.kind),
    });
  } finally {
    deps.onChange();
  }
}

export function createExchangeMandates(deps: ExchangeMandatesDeps): ExchangeMandates {
  /** A mandate as it stands for this analyst (their change still queued on top). */
  const standing = (le: string, id: string): StandingApproval | null =>
    standingApproval(
      deps.approvals.latest(le, id, 'exchange'),
      deps.approvals.queuedFor(le, id, 'exchange'),
      deps.approvals.sendJob(le, id),
    );
  /** Each mandate (a mandate's object id is its own), asked offline ones too. */
  const mandates = (): StandingApproval[] => {
    const ids = new Set([
      ...deps.approvals.approvalsOf('exchange').map((a) => `${a.legalEntityId}\n${a.object.id}`),
      ...deps.approvals.queuedOf('exchange').map((j) => `${j.legalEntityId}\n${j.objectId}`),
    ]);
    return [...ids].flatMap((key) => {
      const [le = '', id = ''] = key.split('\n');
      const a = standing(le, id);
      return a ? [a] : [];
    });
  };
  /** Sent now, or queued while the team server is away; a refusal in words. */
  const change = async (
    le: string,
    id: string,
    c: Parameters<typeof approvalChange>[3],
  ): Promise<MandateView> => {
    await sendApprovalChange(deps.approvals, approvalChange('exchange', le, id, c), failure, deps.onChange);
    return mandateView(deps, standing(le, id) as StandingApproval);
  };
  const memberEntity = async (profileId: string): Promise<string | null> => {
    const me = deps.analyst();
    if (!me) return null;
    const le = await deps.entityOf(profileId);
    return le && me.memberships.some((m) => m.legalEntityId === le) ? le : null;
  };
  const requireEntity = async (profileId: string): Promise<string> => {
    const le = await memberEntity(profileId);
    if (!le)
      throw new AppFailure({
        kind: 'forbidden',
        reason: 'NOT_A_MEMBER',
        message:
          'This profile’s legal entity is not part of your team (or you are not signed in to the team).',
      });
    return le;
  };

  return {
    list: () =>
      deps.analyst()
        ? mandates()
            .filter((a) => a.status !== 'cleared')
            .sort((x, y) => ((x.requestedAt ?? '') < (y.requestedAt ?? '') ? 1 : -1))
            .map((a) => mandateView(deps, a))
        : [],
    async ask({ profileId, ...m }) {
      const le = await requireEntity(profileId);
      const content: MandateContent = { kind: 'exchange', ...m };
      // The mandate's id is given here, so a request sent again after a lost answer lands once.
      return change(le, `mandate-${randomUUID()}`, {
        op: 'ask',
        contentHash: approvalHash(content),
        content,
      });
    },
    async decide(input) {
      const le = await requireEntity(input.profileId);
      const a = deps.approvals
        .approvalsOf('exchange')
        .find((x) => x.id === input.approvalId && x.legalEntityId === le);
      if (!a)
        throw new AppFailure({
          kind: 'not_found',
          reason: 'NO_MANDATE',
          message: 'This mandate is not known on this workstation: read the mandates again.',
        });
      return change(le, a.object.id, {
        op: input.decision,
        contentHash: input.contentHash,
        targetId: a.id,
        reason: input.decision === 'reject' ? input.reason : null,
      });
    },
    async confirm(ref, direct) {
      const le = await memberEntity(ref.profileId);
      const rules = le ? deps.rulesOf(le) : null;
      if (!le || !rules) return direct();
      const o = await deps.order(ref);
      const side = o.request.side === 'sell' ? 'sell' : 'buy';
      const order = {
        side,
        asset: o.request.requested_asset,
        amount: o.request.requested_amount,
        rate: o.crypto?.customer_rate ?? null,
      };
      const probe: MandateContent = {
        kind: 'exchange',
        side,
        asset: order.asset,
        amount: order.amount,
        worstRate: '0',
      };
      if (!approvalRequired(rules, probe)) return direct();
      const open = deps.approvals
        .approvalsOf('exchange')
        .filter(
          (a) =>
            a.legalEntityId === le &&
            a.status === 'approved' &&
            deps.approvals.sendJob(le, a.object.id)?.status !== 'done',
        );
      const inside = open.find((a) => outsideMandate(a.content as MandateContent, order) === null);
      if (!inside) {
        const why = open
          .map((a) => outsideMandate(a.content as MandateContent, order))
          .find((w) => w !== null);
        throw new AppFailure({
          kind: 'precondition',
          reason: open.length === 0 ? 'MANDATE_REQUIRED' : 'OUTSIDE_MANDATE',
          message:
            open.length === 0
              ? 'Your team’s rules want a checker-approved mandate for exchanges of this amount, and none is open. Nothing was sent to the bank.'
              : `This quote is outside the approved mandate: ${why ?? 'it does not match'}. Nothing was sent to the bank.`,
        });
      }
      return confirmInMandate(deps, inside, ref, o.transactionId);
    },
  };
}

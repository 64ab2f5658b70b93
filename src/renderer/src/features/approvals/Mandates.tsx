import { useEffect, useState } from 'react';
import { assetLabel } from '../../../../shared/activity';
import type { MandateView } from '../../../../shared/ipc/channels/team-mandates';
import {
  decimalsOf,
  formatMinor,
  minorToString,
  parseMinor,
  readAmountInput,
} from '../../../../shared/money';
import { Button, Segmented, Select, TextField } from '../../components/ui';
import type { SegmentedOption } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import { useSubscription } from '../../lib/events';
import { useCrypto } from '../crypto/store';
import { DecisionButtons, type Decision } from './DecisionButtons';
import { approvalsSubscription, useApprovals } from './store';

const SIDES: readonly SegmentedOption<'buy' | 'sell'>[] = [
  { value: 'buy', content: 'Buy', title: 'Buy: pay USD, receive the digital asset' },
  { value: 'sell', content: 'Sell', title: 'Sell: pay the digital asset, receive USD' },
];
const ASSETS = ['ETHEREUM-USDT', 'ETHEREUM-USDC', 'USD'];

/** A mandate in words: "Buy 2,000.00 USDT at a rate of at most 1.0100". */
export function mandateWords(m: Pick<MandateView, 'side' | 'asset' | 'amount' | 'worstRate'>): string {
  const amount = `${formatMinor(parseMinor(m.amount), m.asset, { code: false })} ${assetLabel(m.asset)}`;
  return `${m.side === 'buy' ? 'Buy' : 'Sell'} ${amount} at a rate of ${m.side === 'buy' ? 'at most' : 'at least'} ${m.worstRate}`;
}

function MandateRow({ m, profileId }: { m: MandateView; profileId: string | null }) {
  const [problem, setProblem] = useState<string | null>(null);
  const decide = async (d: Decision): Promise<boolean> => {
    if (!profileId || !m.approvalId) return false;
    setProblem(null);
    const target = { profileId, approvalId: m.approvalId, contentHash: m.contentHash };
    try {
      await call('team.decideMandate', { ...target, ...d });
      await useApprovals.getState().load();
      return true;
    } catch (err) {
      setProblem(errorMessage(err));
      return false;
    }
  };
  return (
    <li data-testid="mandate">
      <p>
        <strong>{mandateWords(m)}</strong> for {m.legalEntityName || 'your legal entity'}, asked by{' '}
        {m.maker.isYou ? 'you' : m.maker.name}.
      </p>
      <p role="status" data-testid="mandate-words">
        {m.words}
      </p>
      {m.mayDecide && <DecisionButtons approveLabel="Approve mandate" onDecide={decide} />}
      {problem && (
        <p role="alert" className="field-error">
          {problem}
        </p>
      )}
    </li>
  );
}

/**
 * Exchange mandates of the analyst's team (nothing in solo use): each in words with its approval,
 * Approve / Reject… for a checker who did not ask, and a form asking for a new one for the legal
 * entity of the exchange form's profile.
 */
export function Mandates() {
  useSubscription(approvalsSubscription);
  const version = useApprovals((s) => s.version);
  const rules = useApprovals((s) => s.rules);
  const profileId = useCrypto((s) => s.context?.environmentId ?? null);
  const [mandates, setMandates] = useState<MandateView[]>([]);
  const [side, setSide] = useState<'buy' | 'sell'>('buy');
  const [asset, setAsset] = useState('ETHEREUM-USDT');
  const [amount, setAmount] = useState('');
  const [rate, setRate] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!profileId) void useCrypto.getState().loadContext();
  }, [profileId]);
  useEffect(() => {
    void call('team.mandates', undefined)
      .then(setMandates)
      .catch(() => setMandates([]));
  }, [version]);
  if (rules.length === 0) return null;

  const ask = async (): Promise<void> => {
    setProblem(null);
    const read = readAmountInput(amount, decimalsOf(asset));
    if (read.problem !== undefined) {
      setProblem(`Amount: write a plain positive number with at most ${decimalsOf(asset)} decimals.`);
      return;
    }
    if (!/^(0|[1-9][0-9]{0,17})(\.[0-9]{1,18})?$/.test(rate.trim())) {
      setProblem('Worst acceptable rate: write a plain decimal number, e.g. 1.0100.');
      return;
    }
    if (!profileId) return;
    try {
      await call('team.askMandate', {
        profileId,
        side,
        asset,
        amount: minorToString(read.minor),
        worstRate: rate.trim(),
      });
      setAmount('');
      setRate('');
      await useApprovals.getState().load();
    } catch (err) {
      setProblem(errorMessage(err));
    }
  };

  return (
    <section className="panel" aria-labelledby="mandates-title" data-testid="mandates">
      <h2 id="mandates-title">Exchange mandates</h2>
      <p className="muted">
        When your team’s rules want a checker for an exchange, a checker approves a mandate first; a quote
        inside it (same side, asset and amount, a rate no worse) may then be confirmed.
      </p>
      {mandates.length > 0 && (
        <ul aria-label="Mandates">
          {mandates.map((m) => (
            <MandateRow key={m.id} m={m} profileId={profileId} />
          ))}
        </ul>
      )}
      <form
        className="approval-rules__form"
        onSubmit={(e) => {
          e.preventDefault();
          void ask();
        }}
      >
        <Segmented
          label="Side (from the customer’s view)"
          value={side}
          onChange={(v) => setSide(v === 'sell' ? 'sell' : 'buy')}
          options={SIDES}
        />
        <Select
          label="Asset the amount is in"
          value={asset}
          onChange={setAsset}
          options={ASSETS.map((a) => ({ value: a, label: assetLabel(a) }))}
        />
        <TextField label="Amount" value={amount} onChange={setAmount} inputMode="decimal" />
        <TextField
          label="Worst acceptable rate"
          description="Units of the quote asset for one unit of the digital asset, as the bank quotes it."
          value={rate}
          onChange={setRate}
          inputMode="decimal"
        />
        <Button type="submit" variant="primary">
          Ask for a mandate
        </Button>
        {problem && (
          <p role="alert" className="field-error">
            {problem}
          </p>
        )}
      </form>
    </section>
  );
}

import { useState } from 'react';
import { RFI_TYPES } from '../../../../shared/catalogue';
import type { EntityRulesView } from '../../../../shared/ipc/channels/team-approvals';
import { decimalToMinor, minorToDecimal } from '../../../../shared/money';
import type { ApprovalRule } from '../../../../shared/team/schemas';
import { rfiTypeWords } from '../../../../shared/words';
import { Button, Checkbox, TextField } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import { useSubscription } from '../../lib/events';
import { approvalsSubscription, useApprovals } from './store';

/** Amounts in rules are minor units; the analyst reads and types them with two decimals. */
const DECIMALS = 2;

function amountOf(rules: readonly ApprovalRule[], kind: 'return' | 'exchange'): string {
  const r = rules.find((x) => x.kind === kind);
  return r && r.kind !== 'rfi_answer' ? minorToDecimal(BigInt(r.above), DECIMALS) : '';
}

/** The rules in words, for everyone: "Every RFI answer needs a checker." … */
export function rulesWords(rules: readonly ApprovalRule[]): string[] {
  if (rules.length === 0)
    return ['No approvals needed: answers, returns and exchanges go without a checker.'];
  return rules.map((r) => {
    if (r.kind === 'rfi_answer')
      return r.rfiType === null
        ? 'Every RFI answer needs a checker.'
        : `Answers to ${rfiTypeWords(r.rfiType).toLowerCase()} RFIs need a checker.`;
    const what = r.kind === 'return' ? 'Returns' : 'Exchange orders';
    return `${what} above ${minorToDecimal(BigInt(r.above), DECIMALS)} need a checker.`;
  });
}

function RulesEditor({ entity }: { entity: EntityRulesView }) {
  const all = entity.rules.some((r) => r.kind === 'rfi_answer' && r.rfiType === null);
  const [every, setEvery] = useState(all);
  const [types, setTypes] = useState<string[]>(
    entity.rules.flatMap((r) => (r.kind === 'rfi_answer' && r.rfiType ? [r.rfiType] : [])),
  );
  const [returns, setReturns] = useState(amountOf(entity.rules, 'return'));
  const [exchange, setExchange] = useState(amountOf(entity.rules, 'exchange'));
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  const save = async (): Promise<void> => {
    setProblem(null);
    setSaved(false);
    const rules: ApprovalRule[] = every
      ? [{ kind: 'rfi_answer', rfiType: null }]
      : types.map((t) => ({ kind: 'rfi_answer', rfiType: t }));
    try {
      for (const [kind, value] of [
        ['return', returns],
        ['exchange', exchange],
      ] as const) {
        if (value.trim() === '') continue;
        rules.push({ kind, above: decimalToMinor(value.trim(), DECIMALS).toString() });
      }
    } catch {
      setProblem('Write amounts as plain numbers with at most two decimals, e.g. 10000.00.');
      return;
    }
    setBusy(true);
    try {
      await call('team.setApprovalRules', { legalEntityId: entity.legalEntityId, rules });
      await useApprovals.getState().load();
      setSaved(true);
    } catch (err) {
      setProblem(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="approval-rules__form"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Checkbox isSelected={every} onChange={setEvery}>
        Every RFI answer needs a checker
      </Checkbox>
      {!every && (
        <fieldset className="approval-rules__types">
          <legend>Answers to these RFI types need a checker</legend>
          {RFI_TYPES.map((t) => (
            <Checkbox
              key={t}
              isSelected={types.includes(t)}
              onChange={(on) => setTypes((x) => (on ? [...x, t] : x.filter((y) => y !== t)))}
            >
              {rfiTypeWords(t)}
            </Checkbox>
          ))}
        </fieldset>
      )}
      <TextField
        label="Returns above this amount need a checker"
        description="In the transfer's currency; empty: no checker for returns."
        value={returns}
        onChange={setReturns}
        inputMode="decimal"
      />
      <TextField
        label="Exchange orders above this amount need a checker"
        description="In the order's asset; empty: no checker for exchanges."
        value={exchange}
        onChange={setExchange}
        inputMode="decimal"
      />
      <Button type="submit" variant="primary" isPending={busy}>
        Save approval rules
      </Button>
      {saved && <p role="status">Approval rules saved.</p>}
      {problem && (
        <p role="alert" className="field-error">
          {problem}
        </p>
      )}
    </form>
  );
}

/**
 * Settings → Team → Approval rules: per legal entity of the analyst's team, what needs a
 * checker. An admin edits them; everyone else reads them in words.
 */
export function ApprovalRulesPanel() {
  useSubscription(approvalsSubscription);
  const rules = useApprovals((s) => s.rules);
  if (rules.length === 0) return null;
  return (
    <section className="approval-rules" aria-labelledby="approval-rules-title">
      <h3 id="approval-rules-title">Approval rules</h3>
      {rules.map((entity) => (
        <div key={entity.legalEntityId} className="approval-rules__entity" data-testid="approval-rules">
          <h4>{entity.legalEntityName}</h4>
          {!entity.known ? (
            <p className="muted">Not read from the team server yet.</p>
          ) : entity.mayEdit ? (
            <RulesEditor key={entity.legalEntityId} entity={entity} />
          ) : (
            <>
              <ul>
                {rulesWords(entity.rules).map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
              <p className="muted">Only an admin of {entity.legalEntityName} changes these rules.</p>
            </>
          )}
        </div>
      ))}
    </section>
  );
}

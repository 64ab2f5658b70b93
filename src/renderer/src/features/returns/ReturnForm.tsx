import { useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { RETURN_REASON_CODES, RETURN_REASON_CODE_LIST } from '../../../../shared/catalogue';
import type { ReturnReasonCode } from '../../../../shared/catalogue';
import { decimalsOf } from '../../../../shared/money';
import type { TransferView } from '../../../../shared/ipc/channels/returns';
import { Money } from '../../components/Money';
import { useReturns } from './store';
import { DESCRIPTION_MAX, defaultAmount, validateReturnForm } from './validate';
import type { ReturnFormErrors } from './validate';

/** Amount (decimal, exact), reason code with its meaning, description; checked before sending. */
export function ReturnForm({
  transfer,
}: {
  transfer: TransferView & { incoming: NonNullable<TransferView['incoming']> };
}) {
  const phase = useReturns((s) => s.phase);
  const sendProblem = useReturns((s) => s.sendProblem);
  const { send, sendAgain, closeForm } = useReturns.getState();
  const inc = transfer.incoming;
  const [amount, setAmount] = useState(() => defaultAmount(inc.amount, inc.currency));
  const [reasonCode, setReasonCode] = useState('');
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<ReturnFormErrors>({});
  const id = useId();
  const amountRef = useRef<HTMLInputElement>(null);
  const reasonRef = useRef<HTMLSelectElement>(null);
  const descriptionRef = useRef<HTMLTextAreaElement>(null);
  const sending = phase === 'sending';
  const decimals = decimalsOf(inc.currency);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const r = validateReturnForm({ amount, reasonCode, description }, inc);
    setErrors(r.errors);
    if (r.errors.amount) amountRef.current?.focus();
    else if (r.errors.reasonCode) reasonRef.current?.focus();
    else if (r.errors.description) descriptionRef.current?.focus();
    if (!r.amountMinor || Object.keys(r.errors).length > 0) return;
    void send({
      transactionId: transfer.transactionId,
      amount: r.amountMinor,
      reasonCode: reasonCode as ReturnReasonCode,
      description: description.trim(),
    });
  };

  const described = (field: keyof ReturnFormErrors, hint: string) =>
    errors[field] ? `${id}-${field}-error ${hint}` : hint;

  return (
    <form className="return-form" onSubmit={onSubmit} noValidate aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Return this transfer</h2>
      <div className="field">
        <label htmlFor={`${id}-amount`}>Amount to return ({inc.currency})</label>
        <div className="field__row">
          <input
            id={`${id}-amount`}
            ref={amountRef}
            name="amount"
            inputMode={decimals > 0 ? 'decimal' : 'numeric'}
            autoComplete="off"
            value={amount}
            aria-invalid={errors.amount ? true : undefined}
            aria-describedby={described('amount', `${id}-amount-hint`)}
            onChange={(e) => setAmount(e.target.value)}
            disabled={sending}
          />
          <span className="muted">{inc.currency}</span>
        </div>
        <p id={`${id}-amount-hint`} className="field__hint">
          At most the original <Money amount={inc.amount} currency={inc.currency} />;{' '}
          {decimals === 0 ? 'a whole number' : `up to ${decimals} decimals, with a dot`}.
        </p>
        {errors.amount && (
          <p id={`${id}-amount-error`} className="field__error" data-testid="return-amount-error">
            {errors.amount}
          </p>
        )}
      </div>
      <div className="field">
        <label htmlFor={`${id}-reason`}>Reason code</label>
        <select
          id={`${id}-reason`}
          ref={reasonRef}
          name="reasonCode"
          value={reasonCode}
          aria-invalid={errors.reasonCode ? true : undefined}
          aria-describedby={described('reasonCode', `${id}-reason-hint`)}
          onChange={(e) => setReasonCode(e.target.value)}
          disabled={sending}
        >
          <option value="">Choose a reason…</option>
          {RETURN_REASON_CODE_LIST.map((code) => (
            <option key={code} value={code}>
              {code} — {RETURN_REASON_CODES[code]}
            </option>
          ))}
        </select>
        <p id={`${id}-reason-hint`} className="field__hint" data-testid="return-reason-meaning">
          {reasonCode && reasonCode in RETURN_REASON_CODES
            ? RETURN_REASON_CODES[reasonCode as ReturnReasonCode]
            : 'The SWIFT reason code sent with the return (e.g. FOCR, AC03, AM09).'}
        </p>
        {errors.reasonCode && (
          <p id={`${id}-reasonCode-error`} className="field__error" data-testid="return-reason-error">
            {errors.reasonCode}
          </p>
        )}
      </div>
      <div className="field">
        <label htmlFor={`${id}-description`}>Description (optional)</label>
        <textarea
          id={`${id}-description`}
          ref={descriptionRef}
          name="description"
          rows={3}
          value={description}
          aria-invalid={errors.description ? true : undefined}
          aria-describedby={described('description', `${id}-description-hint`)}
          onChange={(e) => setDescription(e.target.value)}
          disabled={sending}
        />
        <p id={`${id}-description-hint`} className="field__hint">
          {description.length} / {DESCRIPTION_MAX} characters
        </p>
        {errors.description && (
          <p id={`${id}-description-error`} className="field__error" data-testid="return-description-error">
            {errors.description}
          </p>
        )}
      </div>
      {sendProblem && (
        <div className="notice notice--bad" role="alert" data-testid="return-send-problem">
          <p>{sendProblem.message}</p>
          {sendProblem.retryable && (
            <button type="button" onClick={() => void sendAgain()} disabled={sending}>
              Send again
            </button>
          )}
        </div>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={sending}>
          {sending ? 'Sending…' : 'Create return intent'}
        </button>
        <button type="button" onClick={closeForm} disabled={sending}>
          Back
        </button>
      </div>
    </form>
  );
}

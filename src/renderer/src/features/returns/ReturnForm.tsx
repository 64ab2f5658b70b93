import { useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { RETURN_REASON_CODES, RETURN_REASON_CODE_LIST, reasonCodeName } from '../../../../shared/catalogue';
import type { ReturnReasonCode } from '../../../../shared/catalogue';
import { decimalsOf } from '../../../../shared/money';
import type { TransferView } from '../../../../shared/ipc/channels/returns';
import { Money } from '../../components/Money';
import { AmountField, Button, Select, TextArea } from '../../components/ui';
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
  const reasonRef = useRef<HTMLDivElement>(null);
  const descriptionRef = useRef<HTMLTextAreaElement>(null);
  const sending = phase === 'sending';
  const decimals = decimalsOf(inc.currency);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const r = validateReturnForm({ amount, reasonCode, description }, inc);
    setErrors(r.errors);
    if (r.errors.amount) amountRef.current?.focus();
    else if (r.errors.reasonCode) reasonRef.current?.querySelector('button')?.focus();
    else if (r.errors.description) descriptionRef.current?.focus();
    if (!r.amountMinor || Object.keys(r.errors).length > 0) return;
    void send({
      transactionId: transfer.transactionId,
      amount: r.amountMinor,
      reasonCode: reasonCode as ReturnReasonCode,
      description: description.trim(),
    });
  };

  return (
    <form className="return-form" onSubmit={onSubmit} noValidate aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Return this transfer</h2>
      <AmountField
        label={`Amount to return (${inc.currency})`}
        unit={inc.currency}
        name="amount"
        inputRef={amountRef}
        value={amount}
        onChange={setAmount}
        isDisabled={sending}
        errorMessage={errors.amount}
        description={
          <>
            At most the original <Money amount={inc.amount} currency={inc.currency} />;{' '}
            {decimals === 0 ? 'a whole number' : `up to ${decimals} decimals after the dot`}.
          </>
        }
      />
      <div ref={reasonRef} className="return-form__reason">
        <Select
          label="Reason"
          name="reasonCode"
          value={reasonCode}
          onChange={setReasonCode}
          placeholder="Choose a reason…"
          options={RETURN_REASON_CODE_LIST.map((code) => ({
            value: code,
            // The reason by its name; the SWIFT code the bank sends follows it.
            label: `${reasonCodeName(code)} (${code})`,
          }))}
          isDisabled={sending}
          errorMessage={errors.reasonCode}
        />
        <p className="field__hint" data-testid="return-reason-meaning">
          {reasonCode && reasonCode in RETURN_REASON_CODES
            ? RETURN_REASON_CODES[reasonCode as ReturnReasonCode]
            : 'Why the money goes back: the bank sends it with the return as a SWIFT reason code.'}
        </p>
      </div>
      <TextArea
        label="Description (optional)"
        name="description"
        rows={3}
        value={description}
        onChange={setDescription}
        isDisabled={sending}
        errorMessage={errors.description}
        description={`${description.length} / ${DESCRIPTION_MAX} characters`}
        textAreaRef={descriptionRef}
      />
      {sendProblem && (
        <div className="notice notice--bad" role="alert" data-testid="return-send-problem">
          <p>{sendProblem.message}</p>
          {sendProblem.retryable && (
            <Button onPress={() => void sendAgain()} isDisabled={sending}>
              Send again
            </Button>
          )}
        </div>
      )}
      <div className="actions">
        <Button type="submit" variant="primary" isDisabled={sending}>
          {sending ? 'Sending…' : 'Create return intent'}
        </Button>
        <Button onPress={closeForm} isDisabled={sending}>
          Back
        </Button>
      </div>
    </form>
  );
}

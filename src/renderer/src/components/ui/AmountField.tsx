import type { ReactNode, Ref } from 'react';
import { FieldError, Group, Input, Label, Text, TextField as AriaTextField } from 'react-aria-components';
import { cx } from './cx';

export interface AmountFieldProps {
  label: ReactNode;
  /** The decimal text as typed ("12500.00"); the caller reads it exactly with readAmountInput. */
  value: string;
  onChange(value: string): void;
  /** Currency or asset code shown after the input. */
  unit?: string;
  description?: ReactNode;
  errorMessage?: string | null;
  isDisabled?: boolean;
  isReadOnly?: boolean;
  isRequired?: boolean;
  placeholder?: string;
  name?: string;
  className?: string;
  inputRef?: Ref<HTMLInputElement>;
  onBlur?(): void;
  'data-testid'?: string;
}

/**
 * A money amount typed as text. Never a number input: the value stays the decimal string the
 * analyst typed and is parsed into integer minor units by src/shared/money.ts (readAmountInput),
 * so no float ever touches it. The unit sits beside the input.
 */
export function AmountField({
  label,
  value,
  onChange,
  unit,
  description,
  errorMessage,
  className,
  inputRef,
  placeholder,
  onBlur,
  ...rest
}: AmountFieldProps) {
  return (
    <AriaTextField
      value={value}
      onChange={onChange}
      onBlur={onBlur}
      inputMode="decimal"
      autoComplete="off"
      isDisabled={rest.isDisabled}
      isReadOnly={rest.isReadOnly}
      isRequired={rest.isRequired}
      name={rest.name}
      isInvalid={!!errorMessage}
      className={cx('ui-field', 'ui-amount', className)}
    >
      <Label className="ui-field__label">{label}</Label>
      <Group className="ui-amount__box">
        <Input
          ref={inputRef}
          placeholder={placeholder}
          className="ui-input ui-amount__input"
          data-testid={rest['data-testid']}
        />
        {unit && (
          <span className="ui-amount__unit" aria-hidden="true">
            {unit}
          </span>
        )}
      </Group>
      {description && (
        <Text slot="description" className="ui-field__description">
          {description}
        </Text>
      )}
      <FieldError className="ui-field__error">{errorMessage}</FieldError>
    </AriaTextField>
  );
}

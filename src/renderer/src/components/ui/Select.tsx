import type { ReactNode } from 'react';
import {
  Button as AriaButton,
  FieldError,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Select as AriaSelect,
  SelectValue,
  Text,
} from 'react-aria-components';
import { Check, ChevronDown } from 'lucide-react';
import { cx } from './cx';

export interface SelectOption {
  value: string;
  label: string;
  /** Optional second line / hint. */
  description?: string;
  isDisabled?: boolean;
}

export interface SelectProps {
  label: ReactNode;
  options: readonly SelectOption[];
  /** The selected value; '' is a legitimate value (e.g. "All statuses"). */
  value: string;
  onChange(value: string): void;
  description?: ReactNode;
  errorMessage?: string | null;
  placeholder?: string;
  isDisabled?: boolean;
  isRequired?: boolean;
  hideLabel?: boolean;
  className?: string;
  name?: string;
  'data-testid'?: string;
}

// React Aria keys must be non-empty to round-trip reliably; '' maps to this one.
const EMPTY = '__empty__';
const toKey = (v: string): string => (v === '' ? EMPTY : v);
const fromKey = (k: string): string => (k === EMPTY ? '' : k);

/** A labelled single-choice list (button + popover listbox, typeahead and arrow keys). */
export function Select({
  label,
  options,
  value,
  onChange,
  description,
  errorMessage,
  placeholder,
  hideLabel,
  className,
  ...rest
}: SelectProps) {
  return (
    <AriaSelect
      value={toKey(value)}
      onChange={(k) => {
        if (k !== null) onChange(fromKey(String(k)));
      }}
      isDisabled={rest.isDisabled}
      isRequired={rest.isRequired}
      isInvalid={!!errorMessage}
      name={rest.name}
      placeholder={placeholder}
      className={cx('ui-field', 'ui-select', className)}
      data-testid={rest['data-testid']}
      data-value={value}
    >
      <Label className={cx('ui-field__label', hideLabel && 'ui-visually-hidden')}>{label}</Label>
      <AriaButton className="ui-input ui-select__button">
        <SelectValue className="ui-select__value">
          {({ selectedText, isPlaceholder }) => (isPlaceholder ? (placeholder ?? 'Select…') : selectedText)}
        </SelectValue>
        <ChevronDown size={16} aria-hidden="true" />
      </AriaButton>
      {description && (
        <Text slot="description" className="ui-field__description">
          {description}
        </Text>
      )}
      <FieldError className="ui-field__error">{errorMessage}</FieldError>
      <Popover className="ui-popover" offset={4}>
        <ListBox className="ui-listbox">
          {options.map((o) => (
            <ListBoxItem
              key={toKey(o.value)}
              id={toKey(o.value)}
              textValue={o.label}
              isDisabled={o.isDisabled}
              className="ui-listbox__item"
            >
              {({ isSelected }) => (
                <>
                  <span className="ui-listbox__check" aria-hidden="true">
                    {isSelected && <Check size={14} />}
                  </span>
                  <span className="ui-listbox__text">
                    <span>{o.label}</span>
                    {o.description && <span className="ui-listbox__hint">{o.description}</span>}
                  </span>
                </>
              )}
            </ListBoxItem>
          ))}
        </ListBox>
      </Popover>
    </AriaSelect>
  );
}

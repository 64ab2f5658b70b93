import { useEffect, useRef, useState } from 'react';
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
  /**
   * A popover that leaves the page as it is while open (nothing made inert, no scroll lock): for
   * filters chosen often, where a modal popover's close (the whole page made inert and live
   * again, the scroll lock undone) costs the list its frame. Escape, Tab away and a press outside
   * close it.
   */
  nonModal?: boolean;
  'data-testid'?: string;
  /** How many options there are to choose from (tests and benches read it). */
  'data-count'?: number;
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
  nonModal = false,
  ...rest
}: SelectProps) {
  const [isOpen, setOpen] = useState(false);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const popoverRef = useRef<HTMLElement>(null);
  // A non-modal popover is not dismissed by React Aria on a press outside: this closes it.
  useEffect(() => {
    if (!nonModal || !isOpen) return;
    const onDown = (e: PointerEvent): void => {
      const t = e.target as Node | null;
      if (t && (popoverRef.current?.contains(t) || triggerRef.current?.contains(t))) return;
      setOpen(false);
    };
    document.addEventListener('pointerdown', onDown, true);
    return () => document.removeEventListener('pointerdown', onDown, true);
  }, [nonModal, isOpen]);
  return (
    <AriaSelect
      isOpen={isOpen}
      onOpenChange={setOpen}
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
      data-count={rest['data-count']}
    >
      <Label className={cx('ui-field__label', hideLabel && 'ui-visually-hidden')}>{label}</Label>
      <AriaButton ref={triggerRef} className="ui-input ui-select__button">
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
      <Popover ref={popoverRef} className="ui-popover" offset={4} isNonModal={nonModal}>
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
                    <Text slot="label">{o.label}</Text>
                    {o.description && (
                      <Text slot="description" className="ui-listbox__hint">
                        {o.description}
                      </Text>
                    )}
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

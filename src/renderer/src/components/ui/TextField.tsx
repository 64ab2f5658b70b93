import type { ReactNode, Ref } from 'react';
import {
  FieldError,
  Input,
  Label,
  SearchField as AriaSearchField,
  Text,
  TextArea as AriaTextArea,
  TextField as AriaTextField,
  Button as AriaButton,
} from 'react-aria-components';
import type {
  TextFieldProps as AriaTextFieldProps,
  SearchFieldProps as AriaSearchFieldProps,
} from 'react-aria-components';
import { Search, X } from 'lucide-react';
import { cx } from './cx';

interface FieldBase {
  label: ReactNode;
  /** Help under the field. */
  description?: ReactNode;
  /** A problem to show at the field (marks it invalid). */
  errorMessage?: string | null;
  placeholder?: string;
  className?: string;
  /** Visually hide the label (it stays the accessible name). */
  hideLabel?: boolean;
  inputRef?: Ref<HTMLInputElement>;
}

export interface TextFieldProps
  extends Omit<AriaTextFieldProps, 'className' | 'children' | 'style'>, FieldBase {
  /** Monospace input (ids, keys). */
  mono?: boolean;
}

function FieldParts({
  label,
  description,
  errorMessage,
  hideLabel,
}: Pick<FieldBase, 'label' | 'description' | 'errorMessage' | 'hideLabel'>) {
  return (
    <>
      <Label className={cx('ui-field__label', hideLabel && 'ui-visually-hidden')}>{label}</Label>
      {description && (
        <Text slot="description" className="ui-field__description">
          {description}
        </Text>
      )}
      <FieldError className="ui-field__error">{errorMessage}</FieldError>
    </>
  );
}

/**
 * A labelled one-line text field. Read-only fields look read-only (flat, no border), so a viewer
 * never mistakes them for something to edit.
 */
export function TextField({
  label,
  description,
  errorMessage,
  placeholder,
  className,
  hideLabel,
  inputRef,
  mono,
  ...rest
}: TextFieldProps) {
  return (
    <AriaTextField
      {...rest}
      isInvalid={rest.isInvalid ?? !!errorMessage}
      className={cx('ui-field', className)}
    >
      <FieldParts label={label} description={description} errorMessage={errorMessage} hideLabel={hideLabel} />
      <Input ref={inputRef} placeholder={placeholder} className={cx('ui-input', mono && 'ui-input--mono')} />
    </AriaTextField>
  );
}

export interface TextAreaProps
  extends Omit<AriaTextFieldProps, 'className' | 'children' | 'style'>, Omit<FieldBase, 'inputRef'> {
  rows?: number;
  textAreaRef?: Ref<HTMLTextAreaElement>;
}

/** A labelled multi-line text field. */
export function TextArea({
  label,
  description,
  errorMessage,
  placeholder,
  className,
  hideLabel,
  rows = 5,
  textAreaRef,
  ...rest
}: TextAreaProps) {
  return (
    <AriaTextField
      {...rest}
      isInvalid={rest.isInvalid ?? !!errorMessage}
      className={cx('ui-field', className)}
    >
      <FieldParts label={label} description={description} errorMessage={errorMessage} hideLabel={hideLabel} />
      <AriaTextArea
        ref={textAreaRef}
        rows={rows}
        placeholder={placeholder}
        className="ui-input ui-textarea"
      />
    </AriaTextField>
  );
}

export interface SearchFieldProps
  extends Omit<AriaSearchFieldProps, 'className' | 'children' | 'style'>, FieldBase {}

/** A search box with a search icon and a clear button; Escape clears it (React Aria). */
export function SearchField({
  label,
  description,
  errorMessage,
  placeholder,
  className,
  hideLabel,
  inputRef,
  ...rest
}: SearchFieldProps) {
  return (
    <AriaSearchField {...rest} className={cx('ui-field', 'ui-search', className)}>
      <FieldParts label={label} description={description} errorMessage={errorMessage} hideLabel={hideLabel} />
      <div className="ui-search__box">
        <Search size={16} aria-hidden="true" className="ui-search__icon" />
        <Input ref={inputRef} placeholder={placeholder} className="ui-input ui-search__input" />
        <AriaButton className="ui-search__clear" aria-label="Clear search">
          <X size={14} aria-hidden="true" />
        </AriaButton>
      </div>
    </AriaSearchField>
  );
}

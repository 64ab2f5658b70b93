import type { ReactNode } from 'react';
import { Checkbox as AriaCheckbox, Switch as AriaSwitch } from 'react-aria-components';
import type {
  CheckboxProps as AriaCheckboxProps,
  SwitchProps as AriaSwitchProps,
} from 'react-aria-components';
import { Check, Minus } from 'lucide-react';
import { cx } from './cx';

export interface CheckboxProps extends Omit<AriaCheckboxProps, 'className' | 'children' | 'style'> {
  children: ReactNode;
  className?: string;
}

/** A labelled checkbox (the label is clickable; Space toggles). */
export function Checkbox({ children, className, ...rest }: CheckboxProps) {
  return (
    <AriaCheckbox {...rest} className={cx('ui-checkbox', className)}>
      {({ isSelected, isIndeterminate }) => (
        <>
          <span className="ui-checkbox__box" aria-hidden="true">
            {isIndeterminate ? <Minus size={12} /> : isSelected ? <Check size={12} /> : null}
          </span>
          <span>{children}</span>
        </>
      )}
    </AriaCheckbox>
  );
}

export interface SwitchProps extends Omit<AriaSwitchProps, 'className' | 'children' | 'style'> {
  children: ReactNode;
  className?: string;
}

/** An on/off setting that takes effect at once. */
export function Switch({ children, className, ...rest }: SwitchProps) {
  return (
    <AriaSwitch {...rest} className={cx('ui-switch', className)}>
      <span className="ui-switch__track" aria-hidden="true">
        <span className="ui-switch__thumb" />
      </span>
      <span>{children}</span>
    </AriaSwitch>
  );
}

import type { ReactNode } from 'react';
import { Button as AriaButton } from 'react-aria-components';
import type { ButtonProps as AriaButtonProps } from 'react-aria-components';
import { LoaderCircle } from 'lucide-react';
import { cx } from './cx';

export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'ghost';

export interface ButtonProps extends Omit<AriaButtonProps, 'className' | 'children' | 'style'> {
  variant?: ButtonVariant;
  size?: 'md' | 'sm';
  /** An icon before the label (lucide-react, aria-hidden). */
  icon?: ReactNode;
  className?: string;
  children: ReactNode;
}

/**
 * The app's button (React Aria: press, keyboard and focus-visible handled alike on every input).
 * `isPending` keeps the button focusable, announces busy and shows a spinner instead of the icon.
 */
export function Button({
  variant = 'secondary',
  size = 'md',
  icon,
  className,
  children,
  ...rest
}: ButtonProps) {
  return (
    <AriaButton
      {...rest}
      className={cx('ui-button', `ui-button--${variant}`, size === 'sm' && 'ui-button--sm', className)}
    >
      {rest.isPending ? <LoaderCircle className="ui-spin" aria-hidden="true" size={16} /> : icon}
      <span className="ui-button__label">{children}</span>
    </AriaButton>
  );
}

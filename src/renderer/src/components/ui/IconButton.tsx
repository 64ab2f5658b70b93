import type { ReactNode } from 'react';
import { Button as AriaButton } from 'react-aria-components';
import type { ButtonProps as AriaButtonProps } from 'react-aria-components';
import { cx } from './cx';
import { Tooltip } from './Tooltip';

export interface IconButtonProps extends Omit<
  AriaButtonProps,
  'className' | 'children' | 'style' | 'aria-label'
> {
  /** The accessible name, also shown as the tooltip. */
  label: string;
  icon: ReactNode;
  variant?: 'ghost' | 'secondary' | 'danger';
  className?: string;
  /** Set false where a tooltip would cover what it points at. */
  tooltip?: boolean;
}

/** A button that shows only an icon; its label is its accessible name and its tooltip. */
export function IconButton({
  label,
  icon,
  variant = 'ghost',
  className,
  tooltip = true,
  ...rest
}: IconButtonProps) {
  const button = (
    <AriaButton
      {...rest}
      aria-label={label}
      className={cx('ui-icon-button', `ui-icon-button--${variant}`, className)}
    >
      {icon}
    </AriaButton>
  );
  return tooltip ? <Tooltip content={label}>{button}</Tooltip> : button;
}

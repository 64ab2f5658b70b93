import type { ReactNode } from 'react';
import { cx } from './cx';

export type BadgeTone = 'ok' | 'warn' | 'bad' | 'info' | 'neutral';

export interface BadgeProps {
  tone?: BadgeTone;
  icon?: ReactNode;
  children: ReactNode;
  className?: string;
  title?: string;
  'data-testid'?: string;
}

/** A short label with a tone; the words always carry the meaning (colour is never alone). */
export function Badge({ tone = 'neutral', icon, children, className, title, ...rest }: BadgeProps) {
  return (
    <span
      className={cx('ui-badge', `ui-badge--${tone}`, className)}
      title={title}
      data-testid={rest['data-testid']}
    >
      {icon}
      <span className="ui-badge__text">{children}</span>
    </span>
  );
}

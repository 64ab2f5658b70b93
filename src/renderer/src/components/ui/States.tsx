import type { ReactNode } from 'react';
import { CircleAlert, Inbox } from 'lucide-react';
import { cx } from './cx';

export interface SkeletonProps {
  /** Number of placeholder lines. */
  lines?: number;
  /** What is loading, for screen readers ("Loading RFIs"). */
  label: string;
  className?: string;
}

/** Grey placeholder lines while data loads; announced once as busy. */
export function Skeleton({ lines = 3, label, className }: SkeletonProps) {
  return (
    <div className={cx('ui-skeleton', className)} role="status" aria-busy="true" aria-label={label}>
      {Array.from({ length: lines }, (_, i) => (
        <span key={i} className="ui-skeleton__line" aria-hidden="true" />
      ))}
    </div>
  );
}

export interface EmptyStateProps {
  title: string;
  children?: ReactNode;
  /** The next step (a Button or link). */
  action?: ReactNode;
  icon?: ReactNode;
  className?: string;
}

/** Nothing to show, said in words, with what to do next. */
export function EmptyState({ title, children, action, icon, className }: EmptyStateProps) {
  return (
    <div className={cx('ui-state', 'ui-state--empty', className)}>
      <span className="ui-state__icon" aria-hidden="true">
        {icon ?? <Inbox size={28} />}
      </span>
      <p className="ui-state__title">{title}</p>
      {children && <div className="ui-state__body">{children}</div>}
      {action && <div className="ui-state__action">{action}</div>}
    </div>
  );
}

export interface ErrorStateProps {
  title: string;
  /** What went wrong, in words. */
  children?: ReactNode;
  /** The next step: always give one (Retry, Open settings…). */
  action: ReactNode;
  className?: string;
}

/** A failure with its next step; announced as an alert. */
export function ErrorState({ title, children, action, className }: ErrorStateProps) {
  return (
    <div className={cx('ui-state', 'ui-state--error', className)} role="alert">
      <span className="ui-state__icon" aria-hidden="true">
        <CircleAlert size={28} />
      </span>
      <p className="ui-state__title">{title}</p>
      {children && <div className="ui-state__body">{children}</div>}
      <div className="ui-state__action">{action}</div>
    </div>
  );
}

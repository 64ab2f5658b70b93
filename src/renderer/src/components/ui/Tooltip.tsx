import type { ReactElement, ReactNode } from 'react';
import { Tooltip as AriaTooltip, TooltipTrigger } from 'react-aria-components';

export interface TooltipProps {
  /** What the tooltip says. */
  content: ReactNode;
  /** One focusable child (a Button or IconButton); the tooltip shows on hover and focus. */
  children: ReactElement;
  placement?: 'top' | 'bottom' | 'start' | 'end';
}

/** A short hint on hover and keyboard focus; never the only place a piece of information lives. */
export function Tooltip({ content, children, placement = 'top' }: TooltipProps) {
  return (
    <TooltipTrigger delay={500} closeDelay={100}>
      {children}
      <AriaTooltip className="ui-tooltip" placement={placement} offset={6}>
        {content}
      </AriaTooltip>
    </TooltipTrigger>
  );
}

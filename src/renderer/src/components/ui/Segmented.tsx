import { useId } from 'react';
import type { ReactNode } from 'react';
import { ToggleButton, ToggleButtonGroup } from 'react-aria-components';
import { countWords } from '../../../../shared/words';
import { cx } from './cx';

export interface SegmentedOption<K extends string> {
  value: K;
  /** What the segment shows: a word, or an icon with `name` as its accessible name. */
  content: ReactNode;
  /** The accessible name when `content` is an icon. */
  name?: string;
  /** The hover title (the full wording when the segment is short). */
  title?: string;
  /** A number shown after the words (a count), part of the accessible name. */
  count?: number | undefined;
}

export interface SegmentedProps<K extends string> {
  label: string;
  /** The label names the group for assistive technology only. */
  hideLabel?: boolean;
  value: K;
  onChange(value: K): void;
  options: readonly SegmentedOption<K>[];
  className?: string;
  'data-testid'?: string;
}

/**
 * One choice among a few, every choice visible (sort order, row density): a toggle button group
 * with single selection that cannot be emptied. Arrow keys move between the segments. Unlike a
 * Select there is no popover, so choosing opens and closes nothing: the list re-sorts in the same
 * frame as the press.
 */
export function Segmented<K extends string>({
  label,
  hideLabel,
  value,
  onChange,
  options,
  className,
  ...rest
}: SegmentedProps<K>) {
  const labelId = useId();
  return (
    <div className={cx('ui-field', className)} data-testid={rest['data-testid']} data-value={value}>
      {!hideLabel && (
        <span id={labelId} className="ui-field__label">
          {label}
        </span>
      )}
      <ToggleButtonGroup
        {...(hideLabel ? { 'aria-label': label } : { 'aria-labelledby': labelId })}
        selectionMode="single"
        disallowEmptySelection
        selectedKeys={[value]}
        onSelectionChange={(keys) => {
          const k = [...keys][0];
          const chosen = options.find((o) => o.value === k);
          if (chosen) onChange(chosen.value);
        }}
        className="ui-segmented"
      >
        {options.map((o) => (
          <ToggleButton
            key={o.value}
            id={o.value}
            className={cx('ui-segmented__item', o.name === undefined && 'ui-segmented__item--text')}
            aria-label={o.name}
            data-value={o.value}
            {...(o.title ? { title: o.title } : {})}
          >
            {o.content}
            {o.count !== undefined && (
              <>
                {' '}
                <span className="ui-segmented__count">{countWords(o.count)}</span>
              </>
            )}
          </ToggleButton>
        ))}
      </ToggleButtonGroup>
    </div>
  );
}

import { useEffect, useState } from 'react';
import { Check, Copy } from 'lucide-react';
import { copyText } from './copy';
import { cx } from './cx';
import { IconButton } from './IconButton';

export interface CopyableIdProps {
  id: string;
  /** What the id is, for the copy button's name ("Copy transaction id"). */
  kind?: string;
  className?: string;
}

/** An id shown secondary to a name: monospace, truncated with the full value on hover, and a copy button. */
export function CopyableId({ id, kind = 'id', className }: CopyableIdProps) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(t);
  }, [copied]);
  return (
    <span className={cx('ui-copyable-id', className)}>
      <code className="ui-copyable-id__value" title={id}>
        {id}
      </code>
      <IconButton
        label={copied ? `Copied ${kind}` : `Copy ${kind}`}
        icon={copied ? <Check size={14} aria-hidden="true" /> : <Copy size={14} aria-hidden="true" />}
        className="ui-copyable-id__button"
        tooltip={false}
        onPress={() => void copyText(id).then((ok) => setCopied(ok))}
      />
    </span>
  );
}

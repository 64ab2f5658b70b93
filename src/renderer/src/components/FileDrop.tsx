import { useState } from 'react';
import type { DragEvent, ReactNode } from 'react';

export interface FileDropProps {
  /** Called with the dropped files (the page never learns their paths). */
  onFiles(files: File[]): void;
  /** What to drop, shown in the zone and given to assistive technology. */
  label: string;
  disabled?: boolean;
  /** Usually the keyboard alternative: a button opening the native file picker. */
  children?: ReactNode;
  'data-testid'?: string;
}

/**
 * A drop zone for files. Dropping is a pointer gesture, so the zone always holds a keyboard
 * alternative (children: e.g. a "Choose files…" button). The active state is said in text too.
 */
export function FileDrop({ onFiles, label, disabled, children, ...rest }: FileDropProps) {
  const [over, setOver] = useState(false);
  const accept = (e: DragEvent<HTMLDivElement>): boolean => {
    if (disabled || !Array.from(e.dataTransfer.types).includes('Files')) return false;
    e.preventDefault();
    return true;
  };
  return (
    <div
      role="group"
      aria-label={label}
      aria-disabled={disabled || undefined}
      className={`file-drop${over ? ' file-drop--over' : ''}`}
      data-testid={rest['data-testid']}
      onDragEnter={(e) => {
        if (accept(e)) setOver(true);
      }}
      onDragOver={(e) => {
        if (accept(e)) e.dataTransfer.dropEffect = 'copy';
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        setOver(false);
        if (!accept(e)) return;
        const files = Array.from(e.dataTransfer.files);
        if (files.length > 0) onFiles(files);
      }}
    >
      <span className="file-drop__hint">
        {over ? 'Release to add the files' : `${label}: drop files here`}
      </span>
      {children}
    </div>
  );
}

import { useState } from 'react';
import { FolderOpen } from 'lucide-react';
import type { CaseFileRfiRef } from '../../../../shared/ipc/channels/case-files';
import { plural } from '../../../../shared/words';
import { Button, Checkbox } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import './case-files.css';

export interface CaseFileExportProps {
  /**
   * The RFIs in the case file (one RFI, or the queue's filtered set), each with the profile that
   * owns it: each is read with its own credential.
   */
  rfis: CaseFileRfiRef[];
  /** Words for the button: "Export case file…" or "Export case file of 12 RFIs…". */
  label?: string;
  /** In a toolbar: the ZIP choice in fewer words. */
  compact?: boolean;
}

/**
 * Exports a case file: main asks where to save it in its own dialog (the page never names a
 * path) and writes a PDF, and a ZIP of the documents with a manifest beside it when asked.
 */
export function CaseFileExport({ rfis, label, compact = false }: CaseFileExportProps) {
  const [zip, setZip] = useState(true);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<{ tone: 'ok' | 'bad'; text: string; saved?: string } | null>(null);

  const showInFolder = async (file: string): Promise<void> => {
    try {
      await call('caseFiles.showInFolder', { path: file });
    } catch (err) {
      setNotice({ tone: 'bad', text: errorMessage(err) });
    }
  };

  const run = async (): Promise<void> => {
    setBusy(true);
    setNotice(null);
    try {
      const r = await call('caseFiles.export', { rfis, zip });
      setNotice(
        r.path
          ? {
              tone: 'ok',
              text: `Case file saved to ${r.path}${r.zipPath ? `, with ${plural(r.documents, 'document')} in ${r.zipPath}` : ''}.`,
              saved: r.path,
            }
          : { tone: 'ok', text: 'Export cancelled: nothing was saved.' },
      );
    } catch (err) {
      setNotice({ tone: 'bad', text: errorMessage(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className={compact ? 'case-file-export case-file-export--compact' : 'case-file-export'}>
      <Button isPending={busy} isDisabled={rfis.length === 0} onPress={() => void run()}>
        {label ?? 'Export case file…'}
      </Button>
      <Checkbox isSelected={zip} onChange={setZip}>
        {compact ? 'With documents' : 'Include the documents (ZIP)'}
      </Checkbox>
      <div aria-live="polite">
        {notice && (
          <p className={`notice notice--${notice.tone}`} role={notice.tone === 'bad' ? 'alert' : 'status'}>
            {notice.text}{' '}
            {notice.saved && (
              <Button variant="ghost" onPress={() => void showInFolder(notice.saved!)}>
                <FolderOpen size={14} aria-hidden="true" /> Show in folder
              </Button>
            )}
          </p>
        )}
      </div>
    </div>
  );
}

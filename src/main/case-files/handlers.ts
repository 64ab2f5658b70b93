import type { Handlers } from '../ipc/dispatcher';
import type { CaseFiles } from './service';

/** Case files: written only where main's native save dialog says. */
export function caseFilesHandlers(
  caseFiles: CaseFiles,
): Pick<Handlers, 'caseFiles.export' | 'caseFiles.showInFolder'> {
  return {
    'caseFiles.export': ({ rfis, zip }) => caseFiles.export(rfis, { zip }),
    'caseFiles.showInFolder': async ({ path }) => {
      caseFiles.showInFolder(path);
      return null;
    },
  };
}

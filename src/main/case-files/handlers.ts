import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../core';

/** Case files: written only where main's native save dialog says. */
export function caseFilesHandlers(
  core: ServiceCore,
): Pick<Handlers, 'caseFiles.export' | 'caseFiles.showInFolder'> {
  return {
    'caseFiles.export': ({ rfiIds, zip }) => core.caseFiles.export(rfiIds, { zip }),
    'caseFiles.showInFolder': async ({ path }) => {
      core.caseFiles.showInFolder(path);
      return null;
    },
  };
}

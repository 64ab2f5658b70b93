import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../core';

export function auditHandlers(core: ServiceCore): Pick<Handlers, 'audit.list' | 'audit.exportCsv'> {
  return {
    'audit.list': (args) => core.audit.list(args ?? {}),
    'audit.exportCsv': async () => {
      const file = await core.platform.showSaveFileDialog({
        title: 'Export the audit log',
        defaultName: `treasury-desk-audit-${new Date().toISOString().slice(0, 10)}.csv`,
        extensions: ['csv'],
      });
      if (!file) return { path: null, rows: 0 };
      const rows = await core.audit.exportCsv(file);
      return { path: file, rows };
    },
  };
}

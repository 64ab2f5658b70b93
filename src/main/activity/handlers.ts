import { appendFile } from 'node:fs/promises';
import type { Handlers } from '../ipc/dispatcher';
import type { AuditLog } from '../bank/audit';
import type { Platform } from '../infra/platform';

/** The audit log behind the Activity screen: its entries, and a CSV export to a file the analyst picks. */
export function auditHandlers(core: {
  audit: Pick<AuditLog, 'list' | 'exportCsv'>;
  platform: Pick<Platform, 'showSaveFileDialog'>;
  /** The team log's rows in the same columns (none in solo use), appended after the local ones. */
  teamCsvRows?: () => Promise<string[]>;
}): Pick<Handlers, 'audit.list' | 'audit.exportCsv'> {
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
      const team = core.teamCsvRows ? await core.teamCsvRows() : [];
      if (team.length > 0) await appendFile(file, `${team.join('\r\n')}\r\n`);
      return { path: file, rows: rows + team.length };
    },
  };
}

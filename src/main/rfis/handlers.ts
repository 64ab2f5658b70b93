import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../core';

type RfiChannels = 'rfis.list' | 'rfis.get' | 'rfis.sync' | 'rfis.markSeen' | 'rfis.counts';

/** The RFI cache: queue rows, one RFI, sync now, read markers, counts. */
export function rfisHandlers(core: ServiceCore): Pick<Handlers, RfiChannels> {
  return {
    'rfis.list': (args) => core.rfis.list(args ?? {}),
    'rfis.get': ({ id, refresh }) => core.rfis.get(id, refresh ?? false),
    'rfis.sync': (args) => core.rfis.sync('sync', args?.full ?? false),
    'rfis.markSeen': ({ id, updatedAt }) => core.rfis.markSeen(id, updatedAt),
    'rfis.counts': () => core.rfis.counts(),
  };
}

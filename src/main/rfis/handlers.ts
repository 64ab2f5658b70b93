import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../core';

type RfiChannels = 'rfis.list' | 'rfis.get' | 'rfis.sync' | 'rfis.markSeen' | 'rfis.counts';

/** The consolidated RFI desk: queue rows of every watched entity, one RFI, sync now, read markers, counts. */
export function rfisHandlers(core: ServiceCore): Pick<Handlers, RfiChannels> {
  return {
    'rfis.list': (args) => core.desk.list(args ?? {}),
    'rfis.get': ({ id, refresh }) => core.desk.get(id, refresh ?? false),
    'rfis.sync': (args) => core.desk.sync(args?.full ?? false),
    'rfis.markSeen': ({ id, updatedAt }) => core.desk.markSeen(id, updatedAt),
    'rfis.counts': () => core.desk.counts(),
  };
}

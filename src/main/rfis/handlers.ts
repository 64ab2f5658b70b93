import type { Handlers } from '../ipc/dispatcher';
import type { Desk } from '../desk/desk';

type RfiChannels = 'rfis.list' | 'rfis.get' | 'rfis.sync' | 'rfis.markSeen' | 'rfis.counts';

/** The consolidated RFI desk: queue rows of every watched entity, one RFI, sync now, read markers, counts. */
export function rfisHandlers(desk: Desk): Pick<Handlers, RfiChannels> {
  return {
    'rfis.list': (args) => desk.list(args ?? {}),
    'rfis.get': ({ id, refresh }) => desk.get(id, refresh ?? false),
    'rfis.sync': (args) => desk.sync(args?.full ?? false),
    'rfis.markSeen': ({ id, updatedAt }) => desk.markSeen(id, updatedAt),
    'rfis.counts': () => desk.counts(),
  };
}

import type { Handlers } from '../ipc/dispatcher';
import type { Desk } from '../desk/desk';

type RfiChannels = 'rfis.list' | 'rfis.get' | 'rfis.sync' | 'rfis.markSeen' | 'rfis.counts';

/** The file names of documents this workstation uploaded for an RFI (the bank keeps none). */
export interface UploadNames {
  uploadsOf(rfiId: string): ReadonlyArray<{ documentId: string; name: string; documentType: string }>;
}

/** The consolidated RFI desk: queue rows of every watched entity, one RFI, sync now, read markers, counts. */
export function rfisHandlers(desk: Desk, uploads?: UploadNames): Pick<Handlers, RfiChannels> {
  return {
    'rfis.list': (args) => desk.list(args ?? {}),
    'rfis.get': async ({ id, refresh }) => {
      const detail = await desk.get(id, refresh ?? false);
      if (!uploads) return detail;
      const documents = uploads
        .uploadsOf(id)
        .map((u) => ({ id: u.documentId, name: u.name, documentType: u.documentType }));
      return { ...detail, documents };
    },
    'rfis.sync': (args) => desk.sync(args?.full ?? false),
    'rfis.markSeen': ({ id, updatedAt }) => desk.markSeen(id, updatedAt),
    'rfis.counts': () => desk.counts(),
  };
}

import type { Handlers } from '../ipc/dispatcher';
import type { EntityWatch } from '../watch/entity-watch';

type RfiChannels = 'rfis.list' | 'rfis.get' | 'rfis.sync' | 'rfis.markSeen' | 'rfis.counts';

/** The file names of documents this workstation uploaded for an RFI (the bank keeps none). */
export interface UploadNames {
  uploadsOf(
    profileId: string,
    rfiId: string,
  ): ReadonlyArray<{ documentId: string; name: string; documentType: string }>;
}

/** The consolidated RFI entityWatch: queue rows of every watched entity, one RFI, sync now, read markers, counts. */
export function rfisHandlers(entityWatch: EntityWatch, uploads?: UploadNames): Pick<Handlers, RfiChannels> {
  return {
    'rfis.list': (args) => entityWatch.list(args ?? {}),
    'rfis.get': async ({ profileId, id, refresh }) => {
      const detail = await entityWatch.get(profileId, id, refresh ?? false);
      if (!uploads) return detail;
      const documents = uploads
        .uploadsOf(detail.owner?.profileId ?? profileId, id)
        .map((u) => ({ id: u.documentId, name: u.name, documentType: u.documentType }));
      return { ...detail, documents };
    },
    'rfis.sync': (args) => entityWatch.sync(args?.full ?? false),
    'rfis.markSeen': ({ profileId, id, updatedAt }) => entityWatch.markSeen(profileId, id, updatedAt),
    'rfis.counts': () => entityWatch.counts(),
  };
}

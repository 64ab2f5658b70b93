import { isAppFailure } from '../../shared/ipc/errors';
import type { RelatedName } from '../../shared/words';
import type { Handlers } from '../ipc/dispatcher';
import type { EntityWatch } from '../watch/entity-watch';
import type { RelatedNames } from './related-names';

type RfiChannels = 'rfis.list' | 'rfis.get' | 'rfis.sync' | 'rfis.markSeen' | 'rfis.counts' | 'rfis.related';

/** The file names of documents this workstation uploaded for an RFI (the bank keeps none). */
export interface UploadNames {
  uploadsOf(
    profileId: string,
    rfiId: string,
  ): ReadonlyArray<{ documentId: string; name: string; documentType: string }>;
}

/** The consolidated RFI entityWatch: queue rows of every watched entity, one RFI, sync now, read markers, counts. */
export function rfisHandlers(
  entityWatch: EntityWatch,
  uploads: UploadNames | undefined,
  related: RelatedNames,
): Pick<Handlers, RfiChannels> {
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
    'rfis.related': async ({ items }) => {
      const byProfile = new Map<string, { type: string; relatedId: string }[]>();
      for (const { profileId, ...item } of items) {
        const list = byProfile.get(profileId) ?? [];
        list.push(item);
        byProfile.set(profileId, list);
      }
      const out: ({ profileId: string; relatedId: string } & RelatedName)[] = [];
      for (const [profileId, list] of byProfile) {
        const names = await related.names(profileId, list).catch((err: unknown) => {
          // A profile removed meanwhile (its rows linger a moment): nothing to name through it.
          if (isAppFailure(err) && err.kind === 'not_found') return new Map<string, RelatedName>();
          throw err;
        });
        for (const [relatedId, r] of names) out.push({ profileId, relatedId, ...r });
      }
      return { items: out };
    },
  };
}

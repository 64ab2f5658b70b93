/**
 * Case files: a PDF (and optionally a ZIP of the documents with a manifest) for one RFI or a
 * filtered set, saved only where main's native save dialog says; the renderer names no path.
 */
import { z } from 'zod';
import { bankId } from '../../api/common';
import { channel } from '../define';
import { profileIdSchema } from './settings';

/** One RFI of a case file and the profile that owns it. */
export const caseFileRfiSchema = z.strictObject({ profileId: profileIdSchema, rfiId: bankId });
export type CaseFileRfiRef = z.infer<typeof caseFileRfiSchema>;

export const caseFilesChannels = {
  'caseFiles.export': channel({
    summary:
      'Export a case file (PDF, and a ZIP of the documents with a manifest when asked) for RFIs, to a path from main’s save dialog.',
    args: z.strictObject({
      /**
       * The RFIs, each with the profile that owns it (as its row says): RFI ids are one bank's
       * only, so two entities' RFIs of the same id can be in one case file.
       */
      rfis: z.array(caseFileRfiSchema).min(1, 'name at least one RFI').max(500, 'at most 500 RFIs at once'),
      zip: z.boolean(),
    }),
    result: z.object({
      /** Where the PDF went (null: the dialog was cancelled). */
      path: z.string().nullable(),
      zipPath: z.string().nullable(),
      rfis: z.number().int(),
      documents: z.number().int(),
    }),
  }),
  'caseFiles.showInFolder': channel({
    summary: 'Open the system file manager at a case file this run saved (no other path is accepted).',
    args: z.strictObject({ path: z.string().min(1).max(4096) }),
    result: z.null(),
  }),
};

/**
 * The desktop shell's own channels and events: the analyst's background and login choices, and
 * the navigation a treasury-desk:// link asks for (main parses the link; the page only moves).
 */

import { z } from 'zod';
import { bankId } from '../../api/common';
import { channel, event, noArgs } from '../define';

export const desktopSettingsSchema = z.object({
  /** Closing the last window keeps the app watching (tray on Windows/Linux, dock on macOS). */
  keepRunningInBackground: z.boolean(),
  /** Start hidden at login (app.setLoginItemSettings). */
  startAtLogin: z.boolean(),
});
export type DesktopSettingsView = z.infer<typeof desktopSettingsSchema>;

/**
 * The screens a link may open. Main's parser (src/main/electron/links/parse.ts) checks each id
 * with the schema of the channel that reads it; the event hub checks the shared id rule again.
 */
export const linkRouteSchema = z.discriminatedUnion('screen', [
  z.object({ screen: z.literal('rfi'), id: bankId }),
  z.object({ screen: z.literal('transaction'), id: bankId }),
  z.object({ screen: z.literal('exchange'), id: bankId }),
]);
export type LinkRoute = z.infer<typeof linkRouteSchema>;

export const desktopChannels = {
  'desktop.settings': channel({
    summary: 'The background and start-at-login choices.',
    args: noArgs,
    result: desktopSettingsSchema,
  }),
  'desktop.updateSettings': channel({
    summary: 'Changes the background and start-at-login choices (login item set by main).',
    args: z.strictObject({
      keepRunningInBackground: z.boolean().optional(),
      startAtLogin: z.boolean().optional(),
    }),
    result: desktopSettingsSchema,
  }),
};

export const desktopEvents = {
  'desktop.openLink': event({
    summary: 'A treasury-desk:// link was opened: show that screen (navigation only, never a write).',
    payload: linkRouteSchema,
  }),
};

/** The in-app hash path of a link's screen (kept zod-free for the renderer's first screen). */
export { routePath } from '../../link-routes';

/**
 * The token vault. A token goes in once (a password field) and never comes back out: no channel
 * answers it, only whether one is stored.
 */

import { z } from 'zod';
import { channel, noArgs } from '../define';
import { profileIdSchema, settingsViewSchema, vaultStatusSchema } from './settings';

export const vaultChannels = {
  'vault.status': channel({
    summary: 'Which keychain is used, or why tokens are kept in memory only.',
    args: noArgs,
    result: vaultStatusSchema,
  }),
  'vault.setToken': channel({
    summary:
      'Store the token of a profile (then re-check its session); replacing a stored token needs the analyst’s confirmation in main’s native dialog. Never answered back.',
    args: z.strictObject({
      profileId: profileIdSchema,
      token: z.string().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters'),
    }),
    result: settingsViewSchema,
  }),
  'vault.deleteToken': channel({
    summary: 'Sign out: remove the token of a profile.',
    args: z.strictObject({ profileId: profileIdSchema }),
    result: settingsViewSchema,
  }),
};

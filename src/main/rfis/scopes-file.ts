/**
 * The stored format of `rfis/scopes.json`: the last legal entity seen per environment, so the RFI
 * cache of that entity opens before the bank has named the credential (offline at start).
 */
import { z } from 'zod';
import type { StateFileFormat } from '../infra/json-store';

const scopesSchema = z.object({ version: z.literal(1), scopes: z.record(z.string(), z.string()) });

/**
 * Version 0 (before the version field) was the map itself; values that are not strings were
 * ignored then and are dropped now.
 */
export const scopesFormat: StateFileFormat<z.infer<typeof scopesSchema>> = {
  label: 'The list of the last legal entity per environment',
  consequence: 'The RFI cache of the entity is found again at the next sign-in.',
  version: 1,
  schema: scopesSchema,
  migrations: {
    0: (raw) => ({
      scopes: Object.fromEntries(Object.entries(raw).filter(([, v]) => typeof v === 'string')),
    }),
  },
};

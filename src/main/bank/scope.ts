/**
 * The bank scope queued work belongs to: the environment profile, the bank's origin and the legal
 * entity of the credential. An outbox entry records the scope it was written for and is only sent
 * while the active session has the same scope; drafts and the RFI cache are partitioned by it.
 *
 * The embedded sandbox listens on a new port every run, so its origin is the fixed name
 * `embedded-sandbox` rather than its URL. The legal entity is null while the bank has not told it
 * (offline at start, or a bank without GET /v1/webhook/url).
 */
export interface BankScope {
  profileId: string;
  origin: string;
  legalEntityId: string | null;
}

export const EMBEDDED_SANDBOX_ORIGIN = 'embedded-sandbox';

/** The origin (scheme://host:port) of a base URL; '' for one that does not parse. */
export function scopeOrigin(environment: { kind: string; baseUrl: string }): string {
  if (environment.kind === 'embedded-sandbox') return EMBEDDED_SANDBOX_ORIGIN;
  try {
    return new URL(environment.baseUrl).origin;
  } catch {
    return '';
  }
}

/**
 * Whether work written for `entry` may be sent in the `active` scope: same profile and same origin
 * (so the token the analyst entered for that bank), and when both legal entities are known, the
 * same one. A legal entity not (yet) known on either side does not hold work back: the token of
 * that profile decides it, the bank checks it, and a session check that has not answered yet (a
 * fault at start) must not keep answers from ever leaving.
 */
export function scopeAllows(entry: BankScope, active: BankScope): boolean {
  if (entry.origin === '' || entry.profileId !== active.profileId || entry.origin !== active.origin) {
    return false;
  }
  return (
    entry.legalEntityId === null ||
    active.legalEntityId === null ||
    entry.legalEntityId === active.legalEntityId
  );
}

/** The key drafts are partitioned by (profile + origin): RFI ids are unique within one bank. */
export function bankKey(scope: Pick<BankScope, 'profileId' | 'origin'>): string {
  return `${scope.profileId}|${scope.origin}`;
}

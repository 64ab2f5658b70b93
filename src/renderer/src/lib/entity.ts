/**
 * The one way the renderer names a legal entity (or the profile acting for it): every header,
 * queue column, filter, detail field and sentence that shows an entity calls entityLabel, so where
 * the name comes from (the bank's own name for the entity, the credential's label) is decided in
 * one place. A missing name reads as words with the id, never as an empty cell.
 */
export interface EntityNaming {
  /** The name the app has for the entity (bank-given or from the credential). */
  name: string | null | undefined;
  /** The bank's id of the legal entity, shown secondary. */
  id?: string | null | undefined;
}

export function entityLabel(e: EntityNaming): string {
  const name = e.name?.trim();
  if (name) return name;
  return e.id ? `Legal entity ${e.id}` : 'Legal entity not named';
}

import { createHash } from 'node:crypto';

/** A short fingerprint of an answer's text (crash-safety acknowledgements). */
export const textSha = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * Opaque identifiers: random, URL-safe, never derived from anything a peer sent.
 */
import { randomBytes } from 'node:crypto';

/** A random id with a short prefix naming its kind, e.g. `s_3kV…`. */
export function randomId(prefix: string, bytes = 12): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}

/** The shape of a session id we generate; a kept id from an earlier process must match it. */
export const SESSION_ID_PATTERN = /^s_[A-Za-z0-9_-]{8,64}$/;

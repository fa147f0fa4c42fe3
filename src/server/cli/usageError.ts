/**
 * Usage errors: a command line the CLI cannot run (exit code 2), with a
 * message that names the fix.
 */
import type { Grant } from '../../protocol/index.js';
import { isAccessClass } from '../../protocol/names.js';

/** A command line the CLI cannot run; exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Parses `read`, `write` or `trade`. */
export function parseGrant(value: string): Grant {
  if (!isAccessClass(value)) throw new UsageError(`--grant must be read, write or trade (got "${value}").`);
  return value;
}

/**
 * Usage errors: a command line the CLI cannot run (exit code 2), with a
 * message that names the fix.
 */
import { GrantSchema, type Grant } from '../../protocol/index.js';

/** A command line the CLI cannot run; exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Parses `read`, `write` or `trade`. */
export function parseGrant(value: string): Grant {
  const parsed = GrantSchema.safeParse(value);
  if (!parsed.success) throw new UsageError(`--grant must be read, write or trade (got "${value}").`);
  return parsed.data;
}

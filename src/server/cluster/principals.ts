/**
 * Who a bearer token names (SPEC §14). Static tokens come from a file mapping
 * token → principal; the file is re-read when it changes, so a trader's token
 * is revoked without restarting nodes. Tokens may be listed in clear or as
 * their SHA-256; either way only hashes are kept in memory. {@link
 * PrincipalResolver} is the seam an OAuth verifier would fill later.
 *
 * ```json
 * { "version": 1, "tokens": [
 *     { "principal": "trader-1042", "sha256": "9f86d0…" },
 *     { "principal": "trader-1043", "token": "a-long-random-secret" } ] }
 * ```
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { PrincipalSchema } from '../../protocol/wire/clusterBus.js';

/** How often the token file is looked at for a change. */
export const RELOAD_CHECK_MS = 2_000;

/** The shortest token accepted in clear. */
export const MIN_TOKEN_LENGTH = 16;

const EntrySchema = z.union([
  z
    .object({
      principal: PrincipalSchema,
      token: z.string().min(MIN_TOKEN_LENGTH).max(512).regex(/^\S+$/),
    })
    .strict(),
  z
    .object({
      principal: PrincipalSchema,
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
    })
    .strict(),
]);

const TokenFileSchema = z.object({ version: z.literal(1), tokens: z.array(EntrySchema).min(1).max(100_000) }).strict();

/** Maps a presented bearer token to its principal. */
export interface PrincipalResolver {
  /** The principal `token` names, or null. */
  principalOf(token: string): string | null;
  /** Stops watching its source. */
  close(): void;
}

/** The SHA-256 of a token, hex, as the file may list it. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Parses a token file's text; throws an Error naming what is wrong. */
export function parseTokenFile(text: string): Map<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('the token file is not JSON: see docs/deploy.md for its shape.');
  }
  const parsed = TokenFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`the token file does not fit: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? '?'}`);
  }
  const byDigest = new Map<string, string>();
  for (const entry of parsed.data.tokens) {
    byDigest.set('token' in entry ? tokenDigest(entry.token) : entry.sha256, entry.principal);
  }
  return byDigest;
}

/**
 * A resolver over a token file; throws at once when the file is unreadable or
 * malformed. A later change that does not parse is ignored (the last good
 * file stays in force) and reported through `onReloadFailed`.
 */
export function tokenFileResolver(
  path: string,
  hooks: { onReloaded?: (count: number) => void; onReloadFailed?: (message: string) => void } = {},
): PrincipalResolver {
  // The stamp is taken before each read, so a change landing during the read is seen at the next look.
  const stamp = () => {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  };
  let seen = stamp();
  let byDigest = parseTokenFile(readFileSync(path, 'utf8'));
  const look = () => {
    try {
      const now = stamp();
      if (now === seen) return;
      seen = now;
      byDigest = parseTokenFile(readFileSync(path, 'utf8'));
      hooks.onReloaded?.(byDigest.size);
    } catch (error) {
      hooks.onReloadFailed?.((error as Error).message);
    }
  };
  const timer = setInterval(look, RELOAD_CHECK_MS);
  timer.unref();
  return {
    // Looked up by digest: the presented token is hashed first, so the lookup's timing says nothing of it.
    principalOf: (token) => (token.length > 512 ? null : (byDigest.get(tokenDigest(token)) ?? null)),
    close: () => clearInterval(timer),
  };
}

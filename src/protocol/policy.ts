/**
 * Access classes, grants and the adapter maximum (SPEC §2, §5).
 */
import * as z from 'zod/mini';
import { ACCESS_CLASSES, DEFAULT_GRANT as NAMED_DEFAULT_GRANT } from './names.js';

/** What a control needs: `read` < `write` < `trade`. */
export const AccessClassSchema = z.enum(ACCESS_CLASSES);
/** What a control needs. */
export type AccessClass = z.infer<typeof AccessClassSchema>;

/** What the person allows MCP attachments to do: the same scale as access classes. */
export const GrantSchema = AccessClassSchema;
/** What the person allows. */
export type Grant = AccessClass;

/** The grant a newly paired host starts with. */
export const DEFAULT_GRANT: Grant = NAMED_DEFAULT_GRANT;

/** A control's risk classification. */
export const RiskSchema = z.enum(['read', 'write', 'financial']);
/** A control's risk classification. */
export type Risk = z.infer<typeof RiskSchema>;

const RANK: Record<AccessClass, number> = { read: 0, write: 1, trade: 2 };

/** True when `granted` covers `needed`. */
export function allows(granted: AccessClass, needed: AccessClass): boolean {
  return RANK[granted] >= RANK[needed];
}

/** The narrower of two access classes. */
export function narrowest(a: AccessClass, b: AccessClass): AccessClass {
  return RANK[a] <= RANK[b] ? a : b;
}

/**
 * The server's startup maximum, sent with every request so each MCP front
 * enforces its own flags even when several share one relay (SPEC §9).
 */
export const AdapterMaximumSchema = z.strictObject({
  /** `trade` only with `--enable-trading`. */
  maxAccess: AccessClassSchema,
  /** `--allow-controls` patterns (exact ids or `controller.*`); null when not narrowed. */
  allowControls: z.nullable(z.array(z.string().check(z.minLength(1), z.maxLength(128))).check(z.maxLength(256))),
});
/** The server's startup maximum. */
export type AdapterMaximum = z.infer<typeof AdapterMaximumSchema>;

/** True when a control id matches one `--allow-controls` pattern. */
export function matchesControlPattern(controlId: string, pattern: string): boolean {
  if (pattern.endsWith('.*')) return controlId.startsWith(pattern.slice(0, -1));
  return controlId === pattern;
}

/**
 * The adapter maximum's verdict on one control: null when allowed, else why not.
 * Trade-class controls need `--enable-trading` and, when `--allow-controls` is
 * given, a matching pattern.
 */
export function adapterDenial(max: AdapterMaximum, controlId: string, accessClass: AccessClass): string | null {
  if (!allows(max.maxAccess, accessClass)) {
    return accessClass === 'trade'
      ? 'Trading is off for this server: start it with --enable-trading.'
      : `This server allows at most ${max.maxAccess} access.`;
  }
  if (accessClass === 'trade' && max.allowControls !== null) {
    if (!max.allowControls.some((p) => matchesControlPattern(controlId, p))) {
      return 'This control is outside the server --allow-controls list.';
    }
  }
  return null;
}

/**
 * The result envelope (SPEC §4): `data`, `error`, `meta`, exactly one of
 * `data`/`error` non-null, carried both as `structuredContent` and as the one
 * text content item. `isError` (outside the payload) is authoritative.
 */
import * as z from 'zod/mini';
import { ErrorObjectSchema, type ErrorObject } from './errors.js';

/** Where the answer comes from: the paper broker or a live one. */
export const EnvironmentSchema = z.enum(['paper', 'live']);
/** Where the answer comes from. */
export type Environment = z.infer<typeof EnvironmentSchema>;

/**
 * `meta`: which session answered, its environment, when, the caller's
 * correlation id and, for a stateless HTTP client (MCP 2026-07-28), the
 * attachment handle to pass back as `attachment` (docs/protocolRevisions.md).
 */
export const MetaSchema = z.strictObject({
  sessionId: z.nullable(z.string()),
  environment: z.nullable(EnvironmentSchema),
  observedAt: z.string(),
  requestId: z.optional(z.string()),
  attachment: z.optional(z.string()),
});
/** `meta`. */
export type Meta = z.infer<typeof MetaSchema>;

/**
 * The envelope for a tool whose success payload is `data`. That exactly one of
 * `data` and `error` is non-null is checked by {@link isWellFormedEnvelope}.
 */
export function envelopeSchema<T extends z.core.$ZodType>(data: T) {
  return z.strictObject({ data: z.nullable(data), error: z.nullable(ErrorObjectSchema), meta: MetaSchema });
}

/** True when exactly one of `data` and `error` is non-null. */
export function isWellFormedEnvelope(envelope: { data: unknown; error: unknown }): boolean {
  return (envelope.data === null) !== (envelope.error === null);
}

/** A tool's payload. */
export type Envelope<T> = { data: T; error: null; meta: Meta } | { data: null; error: ErrorObject; meta: Meta };

/** A successful payload. */
export function okEnvelope<T>(data: T, meta: Meta): Envelope<T> {
  return { data, error: null, meta };
}

/** A failed payload. */
export function errorEnvelope(error: ErrorObject, meta: Meta): Envelope<never> {
  return { data: null, error, meta };
}

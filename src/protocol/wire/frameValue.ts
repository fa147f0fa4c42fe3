/**
 * One frame's JSON value read at an end of a wire (SPEC §9): its nesting depth
 * and string lengths first (when the wire bounds them), then its schema.
 */
import * as z from 'zod/mini';
import type { SafeParse } from '../fastParse.js';
import { checkJsonShape, type JsonShape } from '../jsonLimits.js';

/** A frame read and validated, or why it was refused. */
export type ReadFrame<F> = { ok: true; frame: F } | { ok: false; reason: 'too-large' | 'not-json' | 'schema' };

/** What bounds one frame's value beyond its schema. */
export interface FrameValueBounds {
  /** UTF-8 bytes of the text (the longest string a frame can hold). */
  readonly maxBytes: number;
  /** Nesting depth of the JSON value, checked before the schema walks it (unbounded when absent). */
  readonly maxDepth?: number;
  /**
   * Instead of `maxDepth`: measures the value before the schema walks it, its
   * {@link JsonShape}, or null to refuse the frame (the server's bound on a
   * browser frame, `measureJsonShape`). The shape goes to `measured` with the
   * parsed frame, so a page's answer is held to a request's limits without a
   * second walk (issue 15 item 1): the parse is built from the value and never
   * holds more than it, so what fits for the whole frame fits for any part.
   */
  readonly measure?: (value: unknown) => JsonShape | null;
  /** Hears each frame `measure` measured, with its shape. */
  readonly measured?: (frame: object, shape: JsonShape) => void;
  /**
   * The schema's safe parse with a fast path in front (`fastSafeParse` of the
   * same schema: the same answers), used instead of zod's own.
   */
  readonly parse?: SafeParse<unknown>;
}

/** Checks one frame's JSON value against its bounds, then against `schema`. */
export function readFrameValue<S extends z.core.$ZodType>(
  schema: S,
  value: unknown,
  bounds: FrameValueBounds,
): ReadFrame<z.infer<S>> {
  const shape = bounds.measure?.(value);
  if (
    shape === null ||
    (bounds.maxDepth !== undefined &&
      checkJsonShape(value, { jsonDepth: bounds.maxDepth, stringLength: bounds.maxBytes }))
  ) {
    return { ok: false, reason: 'schema' };
  }
  const parsed = bounds.parse ? bounds.parse(value) : z.safeParse(schema, value);
  if (!parsed.success) return { ok: false, reason: 'schema' };
  if (shape) bounds.measured?.(parsed.data as object, shape);
  return { ok: true, frame: parsed.data as z.infer<S> };
}

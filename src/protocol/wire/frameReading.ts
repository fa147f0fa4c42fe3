/**
 * Reading one text frame off a wire (SPEC §9), the same steps at every end that
 * receives JSON text (the relay both ways, the hub link both ways): size
 * first, then JSON, then (optionally) nesting depth, then the frame's schema. A
 * refusal is a reason code only, never the frame's content.
 */
import * as z from 'zod/mini';
import { checkJsonShape, utf8Length } from '../jsonLimits.js';

/** Why a frame was refused. */
export type FrameRefusal = 'too-large' | 'not-json' | 'schema';

/** A frame read and validated, or why it was refused. */
export type ReadFrame<F> = { ok: true; frame: F } | { ok: false; reason: FrameRefusal };

/** The JSON value of one text frame within `maxBytes` of UTF-8, or why not. */
export function readFrameJson(
  text: string,
  maxBytes: number,
): { ok: true; value: unknown } | { ok: false; reason: 'too-large' | 'not-json' } {
  // UTF-8 takes at least one byte per UTF-16 unit and at most three: the exact count is needed only near the limit.
  if (text.length > maxBytes || (text.length * 3 > maxBytes && utf8Length(text) > maxBytes)) {
    return { ok: false, reason: 'too-large' };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: 'not-json' };
  }
}

/** What bounds one frame beyond its schema. */
export interface FrameBounds {
  /** UTF-8 bytes of the text. */
  readonly maxBytes: number;
  /** Nesting depth of the JSON value, checked before the schema walks it (unbounded when absent). */
  readonly maxDepth?: number;
}

/** Reads one text frame: size, JSON, depth, then `schema`. */
export function readFrame<S extends z.core.$ZodType>(
  schema: S,
  text: string,
  bounds: FrameBounds,
): ReadFrame<z.infer<S>> {
  const read = readFrameJson(text, bounds.maxBytes);
  if (!read.ok) return read;
  if (
    bounds.maxDepth !== undefined &&
    checkJsonShape(read.value, { jsonDepth: bounds.maxDepth, stringLength: bounds.maxBytes })
  ) {
    return { ok: false, reason: 'schema' };
  }
  const parsed = z.safeParse(schema, read.value);
  return parsed.success ? { ok: true, frame: parsed.data } : { ok: false, reason: 'schema' };
}

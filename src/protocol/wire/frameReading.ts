/**
 * Reading one text frame off a wire (SPEC §9), the same steps at every end that
 * receives JSON text (the relay both ways, the hub link both ways): size
 * first, then JSON, then (optionally) nesting depth, then the frame's schema. A
 * refusal is a reason code only, never the frame's content.
 */
import type * as z from 'zod/mini';
import { utf8Length } from '../jsonLimits.js';
import { readFrameValue, type FrameValueBounds, type ReadFrame } from './frameValue.js';

/** Why a frame was refused. */
export type FrameRefusal = 'too-large' | 'not-json' | 'schema';

export type { ReadFrame };

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

/** What bounds one frame beyond its schema (and who hears its measured shape). */
export type FrameBounds = FrameValueBounds;

/** Reads one text frame: size, JSON, depth, then `schema`. */
export function readFrame<S extends z.core.$ZodType>(
  schema: S,
  text: string,
  bounds: FrameBounds,
): ReadFrame<z.infer<S>> {
  const read = readFrameJson(text, bounds.maxBytes);
  return read.ok ? readFrameValue(schema, read.value, bounds) : read;
}

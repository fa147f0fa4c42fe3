/**
 * Parsing and encoding relay frames (SPEC §9): size first, then JSON, then the
 * schema. A failure yields a reason code only, never the frame's content.
 */
import {
  BrowserFrameSchema,
  checkJsonShape,
  DEFAULT_LIMITS,
  MB,
  type BrowserFrame,
  type ServerFrame,
} from '../../protocol/index.js';

/**
 * The largest frame a browser may send: a full result, a 4 MB image as base64,
 * and slack for the envelope around them.
 */
export const MAX_FRAME_BYTES = DEFAULT_LIMITS.resultBytes + Math.ceil((DEFAULT_LIMITS.snapshotBytes * 4) / 3) + MB;

/**
 * The deepest frame a browser may send. A page keeps results and state within
 * the 24-level JSON depth limit (SPEC §6) and a frame wraps them in a few
 * levels; far deeper nesting is malformed, and would overflow the stack of
 * every serializer the answer meets on its way to the MCP client.
 */
export const MAX_FRAME_DEPTH = 64;

/** Why a frame was refused. */
export type FrameRefusal = 'too-large' | 'not-json' | 'schema';

/** The parsed frame, or why it was refused. */
export type ParsedFrame = { ok: true; frame: BrowserFrame } | { ok: false; reason: FrameRefusal };

/** The JSON value of one text frame within `maxBytes`, or why not (the relay's and the front link's first step). */
export function readFrameJson(
  text: string,
  maxBytes: number,
): { ok: true; value: unknown } | { ok: false; reason: 'too-large' | 'not-json' } {
  // A UTF-16 length over the limit is over it in bytes too; the exact count is needed only near it.
  if (text.length > maxBytes || (text.length * 3 > maxBytes && Buffer.byteLength(text) > maxBytes)) {
    return { ok: false, reason: 'too-large' };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: 'not-json' };
  }
}

/** Parses one browser frame: size, JSON, depth, then `BrowserFrameSchema`. */
export function parseBrowserFrame(text: string, maxBytes: number = MAX_FRAME_BYTES): ParsedFrame {
  const read = readFrameJson(text, maxBytes);
  if (!read.ok) return read;
  const value = read.value;
  if (checkJsonShape(value, { jsonDepth: MAX_FRAME_DEPTH, stringLength: maxBytes })) {
    return { ok: false, reason: 'schema' };
  }
  const parsed = BrowserFrameSchema.safeParse(value);
  return parsed.success ? { ok: true, frame: parsed.data } : { ok: false, reason: 'schema' };
}

/** Encodes one server frame. */
export function encodeServerFrame(frame: ServerFrame): string {
  return JSON.stringify(frame);
}

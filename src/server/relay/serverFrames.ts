/**
 * Parsing and encoding relay frames (SPEC §9): size first, then JSON, then the
 * schema. A failure yields a reason code only, never the frame's content.
 */
import {
  BrowserFrameSchema,
  DEFAULT_LIMITS,
  MB,
  measureJsonShape,
  readFrames,
  type BrowserFrame,
  type JsonShape,
  type ReadFrames,
  type ServerFrame,
} from '../../protocol/index.js';
import { withFastPath } from '../../protocol/fastParse.js';

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

/** The browser frame schema with its fast path: a valid response frame is read without zod's generic walk (issue 15 item 1). */
const BrowserFrameReader = withFastPath(BrowserFrameSchema);

/**
 * Parses one browser message: a frame, or on a socket that negotiated batches
 * an array of them (`readFrames`); one refused frame refuses the message.
 */
export function parseBrowserFrames(text: string, maxBytes: number, batch: boolean): ReadFrames<BrowserFrame> {
  const measure = (value: unknown): JsonShape | null => {
    const shape = measureJsonShape(value, { jsonDepth: MAX_FRAME_DEPTH, stringLength: maxBytes });
    return 'limit' in shape ? null : shape;
  };
  return readFrames(BrowserFrameReader, text, { maxBytes, batch, measure, measured });
}

/**
 * A frame's measured shape, kept on the frame as a non-enumerable property
 * under a symbol of this module (no serializer or copy carries it). Not a
 * WeakMap: a scavenge keeps every WeakMap value alive whether or not its key
 * is, so each frame's shape outlived its call (issue 15; bench/serverGc.mjs).
 */
const SHAPE = Symbol('frameShape');
const measured = (frame: object, shape: JsonShape) => {
  if (Object.isExtensible(frame)) Object.defineProperty(frame, SHAPE, { value: shape, configurable: true });
};

/**
 * The depth and longest string a browser frame measured when it was read
 * (`parseBrowserFrames`), so the hub holds its answer to a request's limits
 * without walking it again (issue 15 item 1).
 */
export function browserFrameShape(frame: BrowserFrame): JsonShape | undefined {
  return (frame as { [SHAPE]?: JsonShape })[SHAPE];
}

/** Encodes one server frame. */
export function encodeServerFrame(frame: ServerFrame): string {
  return JSON.stringify(frame);
}

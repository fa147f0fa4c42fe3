/**
 * Frames across the trust boundary (SPEC §9): every inbound frame is size-checked,
 * parsed and validated before anything acts on it; every response is validated
 * and bounded before it leaves, so a host defect never makes the server close
 * the socket under other requests.
 */
import {
  CLOSE_CODES,
  DEFAULT_LIMITS,
  KB,
  ResponseFrameSchema,
  ServerFrameSchema,
  limitExceeded,
  makeError,
  readFrames,
  utf8Length,
  type BrowserFrame,
  type Environment,
  type ErrorObject,
  type RelayLimits,
  type RequestFrame,
  type ServerFrame,
} from '../../protocol/index.js';
import { fastSafeParse } from '../../protocol/fastParse.js';

/** The response frame the bridge sends. */
export type ResponseFrame = Extract<BrowserFrame, { t: 'response' }>;
/** A response's outcome. */
export type RelayOutcome = ResponseFrame['outcome'];

/**
 * Largest inbound frame: a request is at most `requestBytes` of tool input,
 * plus the relay's own fields (attachment, adapter maximum, limits).
 */
export const MAX_INBOUND_FRAME_BYTES = DEFAULT_LIMITS.requestBytes + 64 * KB;

/** Room a response frame may take beyond its result (id, environment, error keys). */
export const RESPONSE_FRAME_OVERHEAD_BYTES = 16 * KB;

/**
 * The relay frame schemas' parses with their fast paths (`fastParse.ts`): a
 * valid request frame, and the response the page answers with, are checked
 * without zod's generic walk, which was the largest part of the page's own
 * per-call work (issue 15 item 1). Whatever the fast path cannot vouch for,
 * zod decides.
 */
const parseServerFrame = fastSafeParse(ServerFrameSchema);
const checkResponseFrame = fastSafeParse(ResponseFrameSchema);

/** Why an inbound frame was refused, as the close code to use. */
export type FrameClose = { ok: false; closeCode: number };

/**
 * Size check, JSON parse and schema validation of one inbound message: a
 * frame, or where the socket negotiated batches an array of them
 * (`frameBatch.ts`); one refused frame refuses the message.
 */
export function parseServerFrames(data: unknown, batch: boolean): { ok: true; frames: ServerFrame[] } | FrameClose {
  if (typeof data !== 'string') return { ok: false, closeCode: CLOSE_CODES.malformed };
  const read = readFrames(ServerFrameSchema, data, {
    maxBytes: MAX_INBOUND_FRAME_BYTES,
    batch,
    parse: parseServerFrame,
  });
  if (read.ok) return read;
  return { ok: false, closeCode: read.reason === 'too-large' ? CLOSE_CODES.tooLarge : CLOSE_CODES.malformed };
}

/**
 * The byte bound of one response frame: the relay's result limit, plus room
 * for the base64 image of a snapshot, plus the frame's own fields.
 */
export function responseByteLimit(limits: RelayLimits, opKind: RequestFrame['op']['kind']): number {
  const image = opKind === 'snapshot' ? Math.ceil(limits.snapshotBytes / 3) * 4 : 0;
  return limits.resultBytes + image + RESPONSE_FRAME_OVERHEAD_BYTES;
}

function exceeds(text: string, limit: number): boolean {
  if (text.length > limit) return true;
  return text.length * 3 > limit && utf8Length(text) > limit;
}

function frameOf(id: string, environment: Environment | null, outcome: RelayOutcome): ResponseFrame {
  return { t: 'response', id, environment, outcome };
}

function stringifyValid(frame: ResponseFrame): string | null {
  if (!checkResponseFrame(frame).success) return null;
  try {
    return JSON.stringify(frame);
  } catch {
    return null;
  }
}

/** Encodes the refusal of request `id`, which could not be acted on (a small error frame, within every bound). */
export function encodeRefusal(id: string, error: ErrorObject): string {
  return JSON.stringify(frameOf(id, null, { ok: false, error }));
}

/**
 * Encodes the response to `request`. A malformed or unserializable outcome
 * becomes `internal_error`; one over the result limit becomes `limit_exceeded`
 * (`resultBytes`) — the SDK bounds a mutation's result earlier, this is the
 * second guard (SPEC §6).
 */
export function encodeResponse(request: RequestFrame, environment: Environment | null, outcome: RelayOutcome): string {
  const text = stringifyValid(frameOf(request.id, environment, outcome));
  if (text === null) {
    const error = makeError(
      'internal_error',
      'The page answered with a malformed result; this is a defect of the host SDK.',
    );
    return JSON.stringify(frameOf(request.id, environment, { ok: false, error }));
  }
  if (!exceeds(text, responseByteLimit(request.limits, request.op.kind))) return text;
  const error = limitExceeded('resultBytes', request.limits.resultBytes);
  return JSON.stringify(frameOf(request.id, environment, { ok: false, error }));
}

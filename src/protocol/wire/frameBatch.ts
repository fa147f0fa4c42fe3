/**
 * Relay frame batches (SPEC §9, issue 15): on a socket that negotiated
 * {@link RELAY_BATCH_SUBPROTOCOL}, one WebSocket message is either one frame,
 * as on any relay socket, or a JSON array of 2–{@link MAX_BATCH_FRAMES} frames
 * within {@link MAX_BATCH_CHARS}. With several calls in flight the frames one
 * end produces in the same turn share a message, saving a send, a receive and
 * an event dispatch per frame at both ends. Both ends read and write batches
 * with the functions here: the reading refuses the whole message when any
 * frame in it is refused, so nothing from a bad message is acted on.
 */
import type * as z from 'zod/mini';
import { readFrame, readFrameJson, type FrameBounds, type FrameRefusal } from './frameReading.js';
import { readFrameValue } from './frameValue.js';

/** The relay subprotocol that also carries batches; a browser offers it before `tradescript.relay.v1`. */
export const RELAY_BATCH_SUBPROTOCOL = 'tradescript.relay.v1.batch';
/**
 * The relay subprotocol that carries batches and call contexts
 * (`callContexts.ts`); a browser offers it before the other two.
 */
export const RELAY_CONTEXT_SUBPROTOCOL = 'tradescript.relay.v1.context';
/** Whether a negotiated subprotocol carries batches. */
export function carriesBatches(protocol: string | undefined): boolean {
  return protocol === RELAY_BATCH_SUBPROTOCOL || protocol === RELAY_CONTEXT_SUBPROTOCOL;
}
/** Most frames in one batch message. */
export const MAX_BATCH_FRAMES = 64;
/** Longest batch message, in UTF-16 units of its text; a longer frame travels alone. */
export const MAX_BATCH_CHARS = 32 * 1024;

/** Why a message was refused: as any frame, or an array on a socket that did not negotiate batches. */
export type BatchRefusal = FrameRefusal | 'batch-not-negotiated';

/** The frames of one message, in order, or why the whole message was refused. */
export type ReadFrames<F> = { ok: true; frames: F[] } | { ok: false; reason: BatchRefusal };

/** Bounds of one message: those of each frame, and whether the socket negotiated batches. */
export interface BatchBounds extends FrameBounds {
  readonly batch: boolean;
}

const OPEN_BRACKET = 0x5b;

/**
 * Reads one message: a frame (`readFrame`), or, where batches were negotiated,
 * an array of 2–64 frames within 32 K chars, each checked for depth and then
 * against `schema` in order. One refused frame refuses the message.
 */
export function readFrames<S extends z.core.$ZodType>(
  schema: S,
  text: string,
  bounds: BatchBounds,
): ReadFrames<z.infer<S>> {
  if (text.charCodeAt(0) !== OPEN_BRACKET) {
    const read = readFrame(schema, text, bounds);
    return read.ok ? { ok: true, frames: [read.frame] } : read;
  }
  if (!bounds.batch) return { ok: false, reason: 'batch-not-negotiated' };
  if (text.length > MAX_BATCH_CHARS) return { ok: false, reason: 'too-large' };
  const read = readFrameJson(text, bounds.maxBytes);
  if (!read.ok) return read;
  const items = read.value;
  if (!Array.isArray(items) || items.length < 2 || items.length > MAX_BATCH_FRAMES) {
    return { ok: false, reason: 'schema' };
  }
  const frames: z.infer<S>[] = [];
  for (const item of items) {
    const parsed = readFrameValue(schema, item, bounds);
    if (!parsed.ok) return parsed;
    frames.push(parsed.frame);
  }
  return { ok: true, frames };
}

/**
 * The messages that carry `texts` (frames already encoded), in order: runs of
 * frames that fit together become one array, a frame that fits with no other
 * (or a lone one) goes as itself, never as a one-element array.
 */
export function packFrames(texts: readonly string[]): string[] {
  const messages: string[] = [];
  let run: string[] = [];
  let chars = 1; // the closing bracket
  const emit = () => {
    if (run.length === 1) messages.push(run[0]!);
    else if (run.length > 1) messages.push(`[${run.join(',')}]`);
    run = [];
    chars = 1;
  };
  for (const text of texts) {
    if (run.length === MAX_BATCH_FRAMES || chars + text.length + 1 > MAX_BATCH_CHARS) emit();
    run.push(text);
    chars += text.length + 1; // the opening bracket or a comma
  }
  emit();
  return messages;
}

/**
 * Runs `flush` as a microtask, as `queueMicrotask` would: a reaction on a
 * settled promise is queued at the same point of the same queue, and V8 runs
 * it without a call into the browser. In Chromium `queueMicrotask` cost the
 * page ~1.3 µs a call against ~0.2 µs (issue 15). A throw in `flush` is
 * reported as an unhandled rejection instead of an error event; the batchers
 * that use it do not throw from a flush.
 */
const settled = Promise.resolve();
export function atTurnEnd(flush: () => void): void {
  void settled.then(flush);
}

/**
 * Outgoing frames queued until the end of the current turn (`schedule` says
 * when: `process.nextTick` in node, a microtask in the browser), then written
 * as {@link packFrames} packs them. A lone frame goes as itself.
 */
export class FrameQueue {
  private texts: string[] = [];
  private readonly flushLater = () => this.flush();

  constructor(
    private readonly write: (message: string) => void,
    private readonly schedule: (flush: () => void) => void,
  ) {}

  /** Queues one encoded frame. */
  push(text: string): void {
    if (this.texts.push(text) === 1) this.schedule(this.flushLater);
  }

  /** Writes what is queued now (before the socket closes, or when the turn ends). */
  flush(): void {
    const texts = this.texts;
    if (texts.length === 0) return;
    this.texts = [];
    if (texts.length === 1) return this.write(texts[0]!);
    for (const message of packFrames(texts)) this.write(message);
  }

  /** Forgets what is queued (the socket is gone). */
  clear(): void {
    this.texts = [];
  }
}

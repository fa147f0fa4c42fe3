/**
 * The calls the bridge worker makes of the page for subscriptions and
 * snapshots (SPEC §7, §8). The worker owns the subscriptions; the page's host
 * SDK owns the sources and the rendering, and its shapes are used as they are.
 */
import type { RelayLimits, RequestAttachment, Target } from '../../protocol/index.js';
import type { BindingRequest, BindingStart, CaptureOptions, CaptureOutcome } from '../../sdk/types.js';

export type { BindingRequest, BindingSinkEvent, BindingStart, CaptureOutcome } from '../../sdk/types.js';

/** The page calls the worker's subscriptions and snapshots need. */
export interface ObservePort {
  /** Starts one binding whose events travel tagged with `handle` (see eventBatch.ts). */
  startBinding(request: BindingRequest, handle: number): Promise<BindingStart>;
  /** Releases one binding's source; idempotent. */
  stopBinding(subscriptionId: string, bindingId: string): Promise<void> | void;
  /** Rasterizes a chart or widget target into a transferred ImageBitmap (or, in the extension, the browser's PNG). */
  capture(target: Target, options: CaptureOptions): Promise<CaptureOutcome | EncodedCapture>;
}

/**
 * A capture the browser already encoded: the extension's visible tab when the
 * target is the whole of it, kept as the browser's PNG so an answer at that
 * size needs no decode and no second encode (SPEC §8 "In the extension").
 */
export interface EncodedCapture {
  ok: true;
  /** The PNG's bytes, exactly `width` × `height` pixels of the target. */
  png: Uint8Array<ArrayBuffer>;
  width: number;
  height: number;
}

/** Who asks, in which session, under which limits. */
export interface ObserveContext {
  sessionId: string;
  attachment: RequestAttachment;
  limits: RelayLimits;
}

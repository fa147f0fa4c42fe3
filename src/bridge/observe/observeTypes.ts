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
  /** Rasterizes a chart or widget target into a transferred ImageBitmap. */
  capture(target: Target, options: CaptureOptions): Promise<CaptureOutcome>;
}

/** Who asks, in which session, under which limits. */
export interface ObserveContext {
  sessionId: string;
  attachment: RequestAttachment;
  limits: RelayLimits;
}

/**
 * The shapes the bridge worker and the page exchange for subscriptions and
 * snapshots (SPEC §7, §8). They mirror the host SDK's binding and capture
 * calls; the worker owns the subscriptions, the page owns the sources.
 */
import type { ErrorObject, RelayLimits, RequestAttachment, Target } from '../protocol/index.js';

/** One binding the page starts on the host SDK. */
export interface BindingRequest {
  sessionId: string;
  subscriptionId: string;
  bindingId: string;
  channelId: string;
  target: Target;
  options: unknown;
  attachment: RequestAttachment;
  /** The binding's index in the start request (for diagnostic paths). */
  bindingIndex?: number;
}

/** The host SDK's answer to a binding start. */
export type BindingStartResult = { ok: true } | { ok: false; error: ErrorObject };

/** What a binding emits on the page: a validated projection, or a marker of one dropped. */
export type BindingEvent = { bindingId: string; payload: unknown } | { bindingId: string; dropped: 'invalid' | 'oversized' };

/** The host SDK's answer to a capture: an ImageBitmap the page transfers to the worker. */
export type CaptureResult =
  | { ok: true; bitmap: ImageBitmap; width: number; height: number }
  | { ok: false; error: ErrorObject };

/** The page calls the worker's subscriptions and snapshots need. */
export interface ObservePort {
  /** Starts one binding whose events travel tagged with `handle`. */
  startBinding(request: BindingRequest, handle: number): Promise<BindingStartResult>;
  /** Releases one binding's source; idempotent. */
  stopBinding(subscriptionId: string, bindingId: string): Promise<void> | void;
  /** Rasterizes a chart or widget target into a transferred ImageBitmap. */
  capture(target: Target, options: { maxPixels: number }): Promise<CaptureResult>;
}

/** Who asks, in which session, under which limits. */
export interface ObserveContext {
  sessionId: string;
  attachment: RequestAttachment;
  limits: RelayLimits;
}

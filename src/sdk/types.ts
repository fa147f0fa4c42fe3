/**
 * The host SDK's public shapes: what a terminal uses to register targets and
 * mount controllers, and what the bridge runtime calls to run requests.
 */
import type {
  AccessClass,
  ChannelDescriptor,
  ControlDescriptor,
  Environment,
  ErrorObject,
  Grant,
  Operation,
  PolicyLayer,
  RelayLimits,
  RequestAttachment,
  AdapterMaximum,
  Revisions,
  Target,
} from '../protocol/index.js';
import type { LinkBindingRequest } from '../protocol/wire/hostLink.js';
import type { ChannelDeclaration, ChannelSource } from './channels/declareChannel.js';
import type { ArgsOf, ControlSpec, ControllerDeclaration, ResultOf } from './declare/declare.js';
import type { OperationLedger } from './ledger/operationLedger.js';

/** Host configuration for one surface (chart or widget): the "surface policy" layer. */
export interface SurfacePolicy {
  /** The most this surface allows MCP attachments to do. */
  maxAccess?: AccessClass;
  /** Control patterns (exact ids or `controller.*`) denied on this surface. */
  deny?: readonly string[];
  /** Shown as `detail` of each denial. */
  detail?: string;
  /**
   * Channel patterns (exact ids or `prefix.*`, e.g. `data.*`) denied on this
   * surface: left out of `availableSubscriptions`, and a binding start is
   * `control_unavailable` with reason `surface-policy`.
   */
  denyChannels?: readonly string[];
  /** When true, a snapshot of this surface is `control_unavailable` with reason `surface-policy`. */
  denyCapture?: boolean;
}

/**
 * How a chart or widget is rendered for a snapshot (SPEC §8): a canvas target
 * hands over its own pixels (e.g. lightweight-charts `takeScreenshot()`); a DOM
 * widget is rasterized by a snapshot engine loaded on first use (`snapdom` by
 * default, `html-to-image` when selected).
 */
export type RenderSource =
  | { kind: 'canvas'; capture: () => Promise<ImageBitmap | HTMLCanvasElement> }
  | { kind: 'dom'; element: HTMLElement; engine?: 'snapdom' | 'html-to-image' };

/** What a target registers with. */
export interface TargetRegistration {
  /** A human label, e.g. "BTCUSDT · 1m". */
  label: string;
  surfacePolicy?: SurfacePolicy;
  /** Extra state shown in context for this target. */
  state?: () => Record<string, unknown>;
  /** Makes the target renderable (a session target never is: registering it with one throws). */
  render?: RenderSource;
}

/** A registered target. */
export interface TargetHandle {
  readonly target: Target;
  /**
   * Unmounts its controllers, releases its channel sources' listeners
   * synchronously (each exactly once), forgets it, then notifies
   * {@link TerminalHost.onTargetUnregistered} listeners. A second call does nothing.
   */
  unregister(): void;
}

/** Revision counters of one controller on one target. */
export interface RevisionHandle {
  /** Current value of a domain. */
  get(domain: string): number;
  /** Increments a domain and returns the new value. */
  bump(domain: string): number;
  /** All domains of this controller on this target. */
  all(): Revisions;
}

/** What a control implementation receives besides its arguments. */
export interface ControlContext {
  readonly target: Target;
  readonly controlId: string;
  /** The caller's, or an attachment-unique generated one. */
  readonly operationId: string;
  readonly attachment: RequestAttachment;
  /** Aborted when a read is cancelled or its deadline passes (a dispatched mutation runs on). */
  readonly signal: AbortSignal;
  /**
   * This controller's counters on this target. After a mutation that succeeded
   * (or may have), the SDK bumps each declared domain the control did not bump
   * itself here.
   */
  readonly revisions: RevisionHandle;
}

/** The implementation of a controller's controls. */
export type ControllerImpl<M extends Record<string, ControlSpec>> = {
  [K in keyof M]: (ctx: ControlContext, ...args: ArgsOf<M[K]>) => ResultOf<M[K]> | Promise<ResultOf<M[K]>>;
};

/** Whether a mounted control may run now; a denial names its layer, or is unclassified. */
export type Availability =
  true | { reason?: Extract<PolicyLayer, 'execution-environment' | 'surface-policy'>; detail?: string };

/**
 * What reconciling an uncertain mutation proved (SPEC §5). `happened` only
 * when the broker holds this attempt's whole request (for an order: account,
 * symbol, side, type, quantity and price under its client order id; an FX
 * confirmation: this confirmation of the quote). Anything short of that is
 * `unknown`, with a `reason` the agent is told (at most 200 characters, no
 * secrets: it is shown as it is written).
 */
export type Reconciliation =
  { outcome: 'happened'; result: unknown } | { outcome: 'not-happened' } | { outcome: 'unknown'; reason?: string };

/** Options of one mounted controller. */
export interface MountOptions {
  /** Controller state shown in the target's context. */
  state?: () => Record<string, unknown>;
  /** Broker or environment support per method (the execution-environment layer). */
  availability?: (method: string) => Availability;
  /** Proves what an uncertain mutation did (for example by client order id). */
  reconcile?: (request: {
    controlId: string;
    args: unknown[];
    operationId: string;
    /**
     * When the uncertain attempt was dispatched (ISO). A broker whose state began
     * after it (a paper broker reset by a reload, a fresh session) cannot prove it
     * did not happen and must answer `unknown`.
     */
    dispatchedAt: string;
  }) => Promise<Reconciliation>;
}

/** A controller mounted on one target. */
export interface MountedController {
  readonly revisions: RevisionHandle;
  unmount(): void;
}

/** Asks the person to confirm a trade-class call in the page; false or no answer declines. */
export type ConfirmHandler = (request: {
  controlId: string;
  target: Target;
  args: unknown[];
  clientName: string;
  signal: AbortSignal;
}) => Promise<boolean>;

/** One call's activity, for the page's feed (no argument values, redacted text only). */
export interface ActivityEntry {
  at: string;
  controlId: string;
  target: Target;
  clientName: string;
  outcome: 'ok' | ErrorObject['code'];
  durationMs: number;
}

/** A request the bridge runtime hands to the host (context, list, call, batch). */
export interface SessionRequest {
  id: string;
  /**
   * The session id the server assigned: shown in context, and part of every
   * operation's ledger key (SPEC §5). A call or batch without one is refused
   * (`internal_error`) before anything runs.
   */
  sessionId: string;
  attachment: RequestAttachment;
  adapter: AdapterMaximum;
  limits: RelayLimits;
  deadlineMs: number;
  op: Extract<Operation, { kind: 'context' | 'listControls' | 'call' | 'batch' }>;
}

/** The host's answer. */
export type SessionOutcome = { ok: true; data: unknown } | { ok: false; error: ErrorObject };

/** Hooks the runtime passes with a request. */
export interface RequestHooks {
  /**
   * Aborted when the MCP client cancels (a dispatched mutation still runs to
   * its outcome). Not read when `onAbort` is given.
   */
  signal?: AbortSignal;
  /**
   * Another way to say the same: the SDK registers one listener, called once
   * when the client cancels (at once if it already has), and reads `signal`
   * never. A caller that offers this makes no AbortSignal for a call that is
   * never cancelled; the SDK makes one only for a control that reads
   * `ctx.signal`.
   */
  onAbort?(listener: () => void): void;
  progress?: (progress: number, total: number) => void;
}

/** The installed vocabulary (the catalog resource). */
export interface Catalog {
  controls: ControlDescriptor[];
  channels: ChannelDescriptor[];
}

/** One binding the bridge runtime starts (SPEC §7), as the host-call link carries it. */
export type BindingRequest = LinkBindingRequest;

/** What a binding hands the bridge: a projected payload, or a marker of one dropped (still a sequence number). */
export type BindingSinkEvent =
  | { readonly bindingId: string; readonly payload: unknown }
  | { readonly bindingId: string; readonly dropped: 'invalid' | 'oversized' };

/** Receives a binding's events synchronously, in the order the source emitted them. */
export type BindingSink = (event: BindingSinkEvent) => void;

/** The answer to a binding start. */
export type BindingStart = { ok: true } | { ok: false; error: ErrorObject };

/** Options of {@link TerminalHost.capture}. */
export interface CaptureOptions {
  /** Most pixels (width × height) of the bitmap; a larger capture is rasterized smaller. */
  maxPixels: number;
}

/**
 * A capture: a transferable bitmap, and the full-resolution size the target
 * had (the bitmap is smaller when it was pre-scaled to fit `maxPixels`).
 */
export type CaptureOutcome =
  { ok: true; bitmap: ImageBitmap; width: number; height: number } | { ok: false; error: ErrorObject };

/** Everything a terminal needs to expose its controls. */
export interface TerminalHost {
  readonly environment: Environment;
  /** The person's grant for MCP attachments; a change applies to the next call. */
  grant: Grant;
  registerTarget(target: Target, registration: TargetRegistration): TargetHandle;
  mount<M extends Record<string, ControlSpec>>(
    target: Target,
    declaration: ControllerDeclaration<M>,
    impl: ControllerImpl<M>,
    options?: MountOptions,
  ): MountedController;
  /** Runs one request through the dispatcher. Never throws: failures are outcomes. */
  handle(request: SessionRequest, hooks?: RequestHooks): Promise<SessionOutcome>;
  catalog(): Catalog;
  onActivity(listener: (entry: ActivityEntry) => void): () => void;
  /**
   * Provides a channel's source on a registered target whose scope the
   * channel supports (once per channel and target; the source goes with the
   * target). Declares the channel if it was not declared up front.
   */
  provideChannel<C extends ChannelDeclaration>(target: Target, channel: C, source: ChannelSource<C>): void;
  /**
   * Starts one binding for the bridge runtime. Checks, in order: the target is
   * registered (`target_not_found`); the channel is provided on it
   * (`control_unavailable`, reason `not-mounted`) and allowed by its surface
   * policy (`control_unavailable`, reason `surface-policy`); the binding id is
   * free and the options valid (`invalid_input` at `["bindings", i, …]`).
   * Only then is the source subscribed (a throwing source: `control_failed`).
   * Each raw event then reaches `sink` projected or as a drop marker. Never throws.
   */
  startBinding(request: BindingRequest, sink: BindingSink): Promise<BindingStart>;
  /** Stops one binding and releases its source's listener exactly once; unknown or repeated is harmless. */
  stopBinding(subscriptionId: string, bindingId: string): void;
  /** Called after a target unregistered and its sources were released (SPEC §7 target-unregistered). */
  onTargetUnregistered(listener: (target: Target) => void): () => void;
  /**
   * Rasterizes a chart or widget target into a transferable `ImageBitmap`
   * (SPEC §8): unknown target `target_not_found`; session target, or one
   * registered without `render`, `target_not_renderable`; surface policy
   * `denyCapture` `control_unavailable`; a failing capture `control_failed`.
   * Never throws.
   */
  capture(target: Target, options: CaptureOptions): Promise<CaptureOutcome>;
}

/** Options of {@link TerminalHost} creation. */
export interface TerminalHostOptions {
  /** Whether this terminal trades on a paper or a live broker. */
  environment: Environment;
  /** The person's initial grant (default `write`, SPEC §2). */
  grant?: Grant;
  /** Where operation evidence is kept (default: IndexedDB when the page has it, else memory). */
  ledger?: OperationLedger;
  /** Asks the person to confirm trade-class calls in the page (opt-in). */
  confirm?: ConfirmHandler;
  /** Clock for timestamps and durations, in epoch milliseconds. */
  now?: () => number;
  /** Controllers declared up front (part of the catalog before they are mounted). */
  controllers?: readonly ControllerDeclaration[];
  /** Custom channels declared up front (the built-ins always are). */
  channels?: readonly ChannelDeclaration[];
  /** The session target's label (default "Session"). */
  sessionLabel?: string;
  /** How reads wait between automatic retries (tests inject a fast one). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Lowers the 20 s confirmation window (never raises it). */
  confirmationTimeoutMs?: number;
}

/**
 * The host-call link (SPEC §1, §10): how the bridge (the page's worker, or the
 * extension's service worker) asks the page's host SDK to run requests,
 * bindings and captures, and how the page answers. One set of messages for
 * both deployments; what differs is the endpoint (a MessagePort, or a
 * `chrome.runtime` Port behind the content script) and the codec (structured
 * clone, or JSON, which carries a capture as a PNG).
 *
 * Every message is parsed on arrival at both ends, and cheaply: the envelope
 * (kind, ids, keys, numbers) is checked here, while a call's operation and
 * its outcome are checked where they already are, against the relay frame
 * they came from or go into (`ServerFrameSchema` on the way in, the response
 * frame's schema on the way out), so no large payload is walked twice. What
 * stays the same for every call of one attachment (session, attachment,
 * adapter maximum, limits) crosses once as a numbered scope.
 */
import * as z from 'zod/mini';
import type { ErrorObject } from '../errors.js';
import type { AdapterMaximum } from '../policy.js';
import type { Operation, RelayLimits, RequestAttachment } from './relay.js';
import { IdSchema, TargetSchema, type Target } from '../target.js';
import { isRecord } from '../record.js';

const LinkIdSchema = z.string().check(z.minLength(1), z.maxLength(64));

/** Operations the page's host SDK answers; subscriptions and snapshots are served by the bridge itself. */
export type HostOperation = Extract<Operation, { kind: 'context' | 'listControls' | 'call' | 'batch' }>;

const HOST_OPERATION_KINDS: ReadonlySet<unknown> = new Set(['context', 'listControls', 'call', 'batch']);

/** An operation of a kind the host answers; its fields were checked in the relay frame it came in. */
const HostOperationSchema = z.custom<HostOperation>(
  (value) => isRecord(value) && HOST_OPERATION_KINDS.has(value['kind']),
  { message: 'subscriptions and snapshots are served by the bridge, not the page' },
);

/** What the calls of one attachment share, as the relay request had it. */
export interface HostLinkScope {
  sessionId: string;
  attachment: RequestAttachment;
  adapter: AdapterMaximum;
  limits: RelayLimits;
}

/** A scope's parts are those of a relay request, checked against `ServerFrameSchema` where it arrived. */
const HostLinkScopeSchema = z.custom<HostLinkScope>(
  (value) =>
    isRecord(value) &&
    typeof value['sessionId'] === 'string' &&
    isRecord(value['attachment']) &&
    isRecord(value['adapter']) &&
    isRecord(value['limits']),
);

/** One binding the bridge starts on the page (SPEC §7). */
export interface LinkBindingRequest {
  sessionId: string;
  subscriptionId: string;
  /** Unique in its subscription. */
  bindingId: string;
  channelId: string;
  target: Target;
  /** Validated against the channel's options schema by the host SDK, before the source is touched. */
  options: unknown;
  attachment: RequestAttachment;
  /** The binding's index in the start request, for diagnostic paths `["bindings", i, "options", …]` (default 0). */
  bindingIndex?: number;
  /** The relay's depth and string limits for payloads (default: the product maxima). */
  limits?: Pick<RelayLimits, 'jsonDepth' | 'stringLength'>;
}

/** A binding request is built by the bridge's subscription registry from a checked `subscribe` request. */
const LinkBindingRequestSchema = z.custom<LinkBindingRequest>(
  (value) =>
    isRecord(value) &&
    typeof value['subscriptionId'] === 'string' &&
    typeof value['bindingId'] === 'string' &&
    typeof value['channelId'] === 'string' &&
    isRecord(value['target']) &&
    isRecord(value['attachment']),
);

const KeySchema = z.int().check(z.positive());

/** Names a scope; later calls refer to it by `key`. */
const ScopeMessage = z.strictObject({ t: z.literal('scope'), key: KeySchema, scope: HostLinkScopeSchema });
/** No call names this scope any more. */
const DropMessage = z.strictObject({ t: z.literal('drop'), key: KeySchema });
const CallMessage = z.strictObject({
  t: z.literal('call'),
  id: LinkIdSchema,
  key: KeySchema,
  deadlineMs: z.int().check(z.positive()),
  op: HostOperationSchema,
});
/** Aborts that call's signal (a dispatched mutation still runs to its outcome). */
const CancelMessage = z.strictObject({ t: z.literal('cancel'), id: LinkIdSchema });
const StartBindingMessage = z.strictObject({
  t: z.literal('startBinding'),
  id: LinkIdSchema,
  handle: z.int().check(z.positive()),
  request: LinkBindingRequestSchema,
});
const StopBindingMessage = z.strictObject({
  t: z.literal('stopBinding'),
  subscriptionId: IdSchema,
  bindingId: IdSchema,
});
const CaptureMessage = z.strictObject({
  t: z.literal('capture'),
  id: LinkIdSchema,
  target: TargetSchema,
  maxPixels: z.int().check(z.positive()),
});
/** Where the page shows a target (the extension crops its visible-tab capture to it). */
const LocateMessage = z.strictObject({ t: z.literal('locate'), id: LinkIdSchema, target: TargetSchema });

/** Bridge → page: the host calls (a deployment may add messages of its own, see `extensionLink.ts`). */
export const HOST_LINK_CALLS = [
  ScopeMessage,
  DropMessage,
  CallMessage,
  CancelMessage,
  StartBindingMessage,
  StopBindingMessage,
  CaptureMessage,
  LocateMessage,
] as const;

/** Bridge → page, on a link that carries nothing else (the page's worker). */
export const HostLinkCallSchema = z.discriminatedUnion('t', [...HOST_LINK_CALLS]);
/** Bridge → page. */
export type HostLinkCall = z.infer<typeof HostLinkCallSchema>;

/** A host's answer: `ok` and its data or error object; the rest is checked in the response frame it goes into. */
export type HostOutcome = { ok: true; data: unknown } | { ok: false; error: ErrorObject };

const HostOutcomeSchema = z.custom<HostOutcome>(
  (value) =>
    isRecord(value) && (value['ok'] === true ? 'data' in value : value['ok'] === false && isRecord(value['error'])),
);

/** A capture as the codec carries it (a bitmap, or a PNG); the codec reads it. */
const CapturedSchema = z.custom<Record<string, unknown>>(
  (value) => isRecord(value) && typeof value['ok'] === 'boolean',
);

const RectSchema = z.strictObject({
  x: z.number(),
  y: z.number(),
  width: z.number().check(z.nonnegative()),
  height: z.number().check(z.nonnegative()),
});

/** Where a target shows in the viewport, for the visible-tab capture (SPEC §8 "In the extension"). */
export const LinkViewSchema = z.strictObject({
  rect: RectSchema,
  viewport: z.strictObject({ width: z.number().check(z.positive()), height: z.number().check(z.positive()) }),
  devicePixelRatio: z.number().check(z.positive()),
  visible: z.boolean(),
});
/** Where a target shows in the viewport. */
export type LinkView = z.infer<typeof LinkViewSchema>;

/** A refusal: `ok: false` and an error object (checked where it goes into a response frame). */
const OutcomeErrorSchema = z.strictObject({
  ok: z.literal(false),
  error: z.custom<ErrorObject>(isRecord),
});

/** Most entries in one batch of binding events. */
export const MAX_EVENT_BATCH = 4096;

/** Handles and projections of one batch: equal lengths, integer handles (negative: a dropped event). */
function isEventBatch(h: unknown, p: unknown): boolean {
  return (
    Array.isArray(h) &&
    Array.isArray(p) &&
    h.length === p.length &&
    h.length <= MAX_EVENT_BATCH &&
    h.every(Number.isInteger)
  );
}

const ResultMessage = z.strictObject({ t: z.literal('result'), id: LinkIdSchema, outcome: HostOutcomeSchema });
const ProgressMessage = z.strictObject({
  t: z.literal('progress'),
  id: LinkIdSchema,
  progress: z.number().check(z.nonnegative()),
  total: z.optional(z.number().check(z.nonnegative())),
});
const BindingStartedMessage = z.strictObject({
  t: z.literal('bindingStarted'),
  id: LinkIdSchema,
  outcome: z.union([z.strictObject({ ok: z.literal(true) }), OutcomeErrorSchema]),
});
const CapturedMessage = z.strictObject({ t: z.literal('captured'), id: LinkIdSchema, outcome: CapturedSchema });
const LocatedMessage = z.strictObject({ t: z.literal('located'), id: LinkIdSchema, view: z.nullable(LinkViewSchema) });
/** Binding events in a batch (see the bridge's eventBatch.ts): a negative handle is a dropped event. */
// Pure, like every `z` call here: a bundle that never reads the page's answers (the page itself) leaves them out.
const EventsMessage = /* @__PURE__ */ z
  .strictObject({
    t: z.literal('events'),
    h: z.custom<number[]>(Array.isArray),
    p: z.custom<unknown[]>(Array.isArray),
  })
  .check(z.refine((batch) => isEventBatch(batch.h, batch.p), { message: 'not a batch of binding events' }));
/** A target unregistered on the page, after every event queued before it. */
const TargetUnregisteredMessage = z.strictObject({ t: z.literal('targetUnregistered'), target: TargetSchema });

/** Page → bridge: answers, progress, and binding events. */
export const HOST_LINK_ANSWERS = [
  ResultMessage,
  ProgressMessage,
  BindingStartedMessage,
  CapturedMessage,
  LocatedMessage,
  EventsMessage,
  TargetUnregisteredMessage,
] as const;

/** Page → bridge, on a link that carries nothing else (the page's worker). */
export const HostLinkAnswerSchema = z.discriminatedUnion('t', [...HOST_LINK_ANSWERS]);
/** Page → bridge. */
export type HostLinkAnswer = z.infer<typeof HostLinkAnswerSchema>;

/** A capture as JSON carries it (`chrome.runtime`): a lossless PNG; 12 MB of pixels stays far below this bound. */
export const LinkCaptureSchema = z.discriminatedUnion('ok', [
  z.strictObject({
    ok: z.literal(true),
    /** Base64 PNG of the (possibly pre-scaled) bitmap. */
    png: z.string().check(z.maxLength(48 * 1024 * 1024)),
    /** The target's full-resolution size. */
    width: z.int().check(z.positive()),
    height: z.int().check(z.positive()),
  }),
  OutcomeErrorSchema,
]);

/**
 * Message batches on a MessagePort link (the page and its worker, issue 15):
 * each end first posts {@link LINK_BATCHES_HELLO}, saying it reads an array
 * of 2–{@link MAX_LINK_BATCH} link messages as those messages in order; an end
 * posts arrays only once the other said so, so an end older than batches
 * (which drops the hello as a message it does not know) never gets one.
 */
export const LINK_BATCHES_HELLO = { t: 'batches' } as const;
/** Most messages in one link batch. */
export const MAX_LINK_BATCH = 64;

/** Whether `data` is the other end's {@link LINK_BATCHES_HELLO}. */
export function isLinkBatchesHello(data: unknown): boolean {
  return isRecord(data) && data['t'] === LINK_BATCHES_HELLO.t && Object.keys(data).length === 1;
}

/** The messages of a link batch, in order, or null when `data` is not one. */
export function linkBatchMessages(data: unknown): readonly unknown[] | null {
  return Array.isArray(data) && data.length >= 2 && data.length <= MAX_LINK_BATCH ? data : null;
}

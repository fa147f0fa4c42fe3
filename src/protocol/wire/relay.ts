/**
 * The relay protocol between the server and a browser bridge runtime (SPEC §9).
 * Every frame is JSON text, validated against these schemas on arrival on both
 * sides; a malformed or foreign frame closes the socket with a 4xxx code.
 */
import * as z from 'zod/mini';
import { ChannelDescriptorSchema, ControlDescriptorSchema } from '../descriptors.js';
import { ContextDataSchema } from '../tools/getContext.js';
import { EnvironmentSchema } from '../envelope.js';
import { ErrorObjectSchema, RevisionsSchema } from '../errors.js';
import { AdapterMaximumSchema, GrantSchema } from '../policy.js';
import { AttachmentSummarySchema, SessionInfoSchema } from '../resources.js';
import type { Limits } from '../limits.js';
import { IdSchema, TargetSchema } from '../target.js';
import { ListControlsInputSchema } from '../tools/listControls.js';
import { SnapshotFormatSchema } from '../tools/snapshot.js';
import { SubscribeInputSchema } from '../tools/subscribe.js';
import { RELAY_BATCH_SUBPROTOCOL, RELAY_CONTEXT_SUBPROTOCOL } from './frameBatch.js';

/** Relay protocol version. */
export const RELAY_VERSION = 1;

/** The WebSocket subprotocol a browser offers on the relay. */
export const RELAY_SUBPROTOCOL = 'tradescript.relay.v1';
/** How a bearer token rides on the relay upgrade: browsers cannot set headers, so as a second subprotocol. */
export const RELAY_BEARER_PREFIX = 'bearer.';

/**
 * The subprotocols a browser offers: the relay's with batches and call
 * contexts, with batches alone (a server older than call contexts selects
 * that), then the relay's alone (a server older than batches), and with a
 * bearer token (cluster mode, SPEC §14) `bearer.<token>`. The server selects
 * one of the relay's, never echoing the token.
 */
export function relaySubprotocols(bearerToken: string | null | undefined): string[] {
  const relay = [RELAY_CONTEXT_SUBPROTOCOL, RELAY_BATCH_SUBPROTOCOL, RELAY_SUBPROTOCOL];
  return bearerToken ? [...relay, `${RELAY_BEARER_PREFIX}${bearerToken}`] : relay;
}

/** WebSocket close codes the relay uses. */
export const CLOSE_CODES = {
  malformed: 4400,
  unauthorized: 4401,
  forbidden: 4403,
  /**
   * The upgrade's `Origin` is not on the relay's allowlist: the server accepts
   * and closes at once with this code (browsers hide a refused upgrade's HTTP
   * status), so the page can say which `--allowed-origin` admits it (SPEC §9).
   */
  originNotAllowed: 4430,
  attachTimeout: 4408,
  tooLarge: 4413,
  heartbeatTimeout: 4420,
  serverShutdown: 4500,
} as const;

const RefSchema = z.string().check(z.minLength(1), z.maxLength(64));
const RequestIdSchema = z.string().check(z.minLength(1), z.maxLength(64));
const SecretSchema = z.string().check(z.minLength(16), z.maxLength(256));

/** A paired host's credential. */
export const CredentialSchema = z.strictObject({ hostId: IdSchema, secret: SecretSchema });
/** A paired host's credential. */
export type Credential = z.infer<typeof CredentialSchema>;

// ---------------------------------------------------------------- browser → server

/** First frame: prove pairing. */
export const HelloFrameSchema = z.strictObject({
  t: z.literal('hello'),
  v: z.literal(RELAY_VERSION),
  agent: z.strictObject({ kind: z.enum(['page', 'extension']), version: z.string().check(z.maxLength(32)) }),
  auth: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('pair'), code: z.string().check(z.minLength(1), z.maxLength(64)) }),
    z.strictObject({ kind: z.literal('credential'), credential: CredentialSchema }),
  ]),
});

/**
 * The host's installed vocabulary. The server serves it as the catalog resource
 * and learns from it which controls are mutations, so a call lost with its
 * socket is reported `uncertain_execution` only when it could have changed state.
 */
export const CatalogSchema = z.strictObject({
  controls: z.array(ControlDescriptorSchema).check(z.maxLength(2000)),
  channels: z.array(ChannelDescriptorSchema).check(z.maxLength(256)),
});
/** The host's installed vocabulary. */
export type CatalogDocument = z.infer<typeof CatalogSchema>;

/**
 * `tradescript://catalog/controls` (SPEC §3, §6): the declarations of every
 * connected session, identical ones merged, within the result limit. When the
 * union is larger it lists what fits, `truncated: true`, and `total` counts
 * every distinct declaration.
 */
export const CatalogResourceSchema = z.strictObject({
  controls: z.array(ControlDescriptorSchema),
  channels: z.array(ChannelDescriptorSchema),
  truncated: z.boolean(),
  total: z.strictObject({ controls: z.int().check(z.nonnegative()), channels: z.int().check(z.nonnegative()) }),
});
/** The catalog resource. */
export type CatalogResource = z.infer<typeof CatalogResourceSchema>;

/** Opens (or reopens, with its kept id) one tab's session. */
export const SessionOpenFrameSchema = z.strictObject({
  t: z.literal('session.open'),
  ref: RefSchema,
  sessionId: z.optional(IdSchema),
  /** The tab's site origin; only the extension may name one (a page's is its socket's). */
  origin: z.optional(z.string().check(z.maxLength(256))),
  info: SessionInfoSchema,
  catalog: CatalogSchema,
});

/** A session's title, environment or grant changed. */
export const SessionUpdateFrameSchema = z.strictObject({
  t: z.literal('session.update'),
  sessionId: IdSchema,
  info: SessionInfoSchema,
  catalog: z.optional(CatalogSchema),
});

/** The tab went away. */
export const SessionCloseFrameSchema = z.strictObject({ t: z.literal('session.close'), sessionId: IdSchema });

/** The answer to one request. */
export const ResponseFrameSchema = z.strictObject({
  t: z.literal('response'),
  id: RequestIdSchema,
  environment: z.nullable(EnvironmentSchema),
  outcome: z.discriminatedUnion('ok', [
    z.strictObject({
      ok: z.literal(true),
      data: z.unknown(),
      /** Snapshot bytes, base64. */
      image: z.optional(z.strictObject({ mimeType: z.string().check(z.maxLength(32)), base64: z.string() })),
    }),
    z.strictObject({ ok: z.literal(false), error: ErrorObjectSchema }),
  ]),
});

/** Progress of a long request (batch, snapshot). */
export const ProgressFrameSchema = z.strictObject({
  t: z.literal('progress'),
  id: RequestIdSchema,
  progress: z.number().check(z.nonnegative()),
  total: z.optional(z.number().check(z.nonnegative())),
});

/** The person asked to end attachments (all, or one). */
export const DetachFrameSchema = z.strictObject({
  t: z.literal('detach'),
  sessionId: z.optional(IdSchema),
  attachmentId: z.optional(IdSchema),
});

/**
 * A pairing link opened in a tab that is already paired (SPEC §9): the code is
 * spent to learn, from the server, the grant the link proposes, which the page
 * shows the person to accept or decline. It pairs nothing.
 */
export const PairOfferFrameSchema = z.strictObject({
  t: z.literal('pair.offer'),
  ref: RefSchema,
  code: z.string().check(z.minLength(1), z.maxLength(64)),
});

/** Heartbeat, either way. */
export const PingFrameSchema = z.strictObject({ t: z.literal('ping'), n: z.int().check(z.nonnegative()) });
/** Heartbeat answer, either way. */
export const PongFrameSchema = z.strictObject({ t: z.literal('pong'), n: z.int().check(z.nonnegative()) });

/** Any frame a browser may send. */
export const BrowserFrameSchema = z.discriminatedUnion('t', [
  HelloFrameSchema,
  SessionOpenFrameSchema,
  SessionUpdateFrameSchema,
  SessionCloseFrameSchema,
  ResponseFrameSchema,
  ProgressFrameSchema,
  DetachFrameSchema,
  PairOfferFrameSchema,
  PingFrameSchema,
  PongFrameSchema,
]);
/** Any frame a browser may send. */
export type BrowserFrame = z.infer<typeof BrowserFrameSchema>;

// ---------------------------------------------------------------- server → browser

/** Answer to hello. A pairing answer carries the new credential and the grant the link proposed. */
export const WelcomeFrameSchema = z.strictObject({
  t: z.literal('welcome'),
  hostId: IdSchema,
  credential: z.optional(CredentialSchema),
  grant: z.optional(GrantSchema),
  heartbeatMs: z.int().check(z.positive()),
  serverVersion: z.string().check(z.maxLength(32)),
  /** Whether this server was started with `--enable-trading` (SPEC §11), for the page to show. */
  tradingEnabled: z.optional(z.boolean()),
});

/** The answer to `pair.offer`: the grant the link proposes, or null (with why) when the code was expired or used. */
export const PairProposalFrameSchema = z.strictObject({
  t: z.literal('pair.proposal'),
  ref: RefSchema,
  grant: z.nullable(GrantSchema),
  message: z.optional(z.string().check(z.maxLength(256))),
});

/** A session is open under this id (kept across reconnects of the same tab). */
export const SessionOpenedFrameSchema = z.strictObject({
  t: z.literal('session.opened'),
  ref: RefSchema,
  sessionId: IdSchema,
});

/** A session could not be opened. */
export const SessionRefusedFrameSchema = z.strictObject({
  t: z.literal('session.refused'),
  ref: RefSchema,
  message: z.string().check(z.maxLength(256)),
});

/** Who is asking: one MCP attachment with its opaque operation namespace. */
export const RequestAttachmentSchema = z.strictObject({
  attachmentId: IdSchema,
  namespace: IdSchema,
  clientName: z.string().check(z.maxLength(128)),
});
/** Who is asking. */
export type RequestAttachment = z.infer<typeof RequestAttachmentSchema>;

/** One call as the page receives it. */
export const RelayCallSchema = z.strictObject({
  target: TargetSchema,
  controlId: z.string().check(z.minLength(1), z.maxLength(256)),
  args: z.array(z.unknown()),
  expectedRevisions: z.optional(RevisionsSchema),
  requestId: z.optional(z.string().check(z.maxLength(128))),
  /** The caller's operation id, or one the server generated (attachment-unique) when omitted. */
  operationId: z.string().check(z.minLength(1), z.maxLength(128)),
  /** True when the caller supplied the operation id (financial controls require it). */
  callerOperationId: z.boolean(),
});
/** One call as the page receives it. */
export type RelayCall = z.infer<typeof RelayCallSchema>;

/** What the server asks of a session. */
export const OperationSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('context'), target: TargetSchema }),
  z.strictObject({ kind: z.literal('listControls'), input: z.omit(ListControlsInputSchema, { sessionId: true }) }),
  z.strictObject({ kind: z.literal('call'), call: RelayCallSchema }),
  z.strictObject({ kind: z.literal('batch'), calls: z.array(RelayCallSchema), stopOnError: z.boolean() }),
  z.strictObject({ kind: z.literal('subscribe'), input: SubscribeInputSchema }),
  z.strictObject({
    kind: z.literal('snapshot'),
    target: TargetSchema,
    format: SnapshotFormatSchema,
    maxWidth: z.optional(z.int().check(z.positive())),
    maxHeight: z.optional(z.int().check(z.positive())),
  }),
]);
/** What the server asks of a session. */
export type Operation = z.infer<typeof OperationSchema>;

/** The limits both sides of the relay enforce. */
export const RelayLimitsSchema = z.strictObject({
  batchCalls: z.int().check(z.positive()),
  callArgs: z.int().check(z.positive()),
  resultBytes: z.int().check(z.positive()),
  snapshotPixels: z.int().check(z.positive()),
  snapshotBytes: z.int().check(z.positive()),
  subscriptionsPerSession: z.int().check(z.positive()),
  bindingsPerSubscription: z.int().check(z.positive()),
  bufferedEvents: z.int().check(z.positive()),
  eventsPerPoll: z.int().check(z.positive()),
  jsonDepth: z.int().check(z.positive()),
  stringLength: z.int().check(z.positive()),
});
/** The limits both sides enforce. */
export type RelayLimits = z.infer<typeof RelayLimitsSchema>;

/** The relay's share of a process's limits (what a request frame carries). */
export function relayLimitsOf(limits: Limits): RelayLimits {
  const keys = Object.keys(RelayLimitsSchema.shape) as (keyof RelayLimits)[];
  return z.parse(RelayLimitsSchema, Object.fromEntries(keys.map((key) => [key, limits[key]])));
}

/** What a request carries unchanged for one attachment: who asks, the adapter maximum, the limits (a call context). */
const callContextShape = {
  attachment: RequestAttachmentSchema,
  adapter: AdapterMaximumSchema,
  limits: RelayLimitsSchema,
};

/** One request to a session. */
export const RequestFrameSchema = z.strictObject({
  t: z.literal('request'),
  id: RequestIdSchema,
  sessionId: IdSchema,
  ...callContextShape,
  deadlineMs: z.int().check(z.positive()),
  op: OperationSchema,
});
/** One request to a session. */
export type RequestFrame = z.infer<typeof RequestFrameSchema>;

/** A call context's key: a socket's keys only ever increase, so none is ever reused. */
const ContextKeySchema = z.int().check(z.nonnegative());

/**
 * On a socket that negotiated call contexts (`callContexts.ts`): what every
 * request of one attachment carries unchanged (who asks, the adapter maximum,
 * the limits), sent once under a new key before the first request that uses
 * it, and again under a new key whenever it changes.
 */
export const ContextFrameSchema = z.strictObject({
  t: z.literal('context'),
  key: ContextKeySchema,
  ...callContextShape,
});
/** A call context as sent. */
export type ContextFrame = z.infer<typeof ContextFrameSchema>;

/**
 * One request to a session on a socket that negotiated call contexts: a
 * request frame whose attachment, adapter maximum and limits are those of the
 * context `context` the socket sent before it. The page refuses a key it does
 * not hold; it never guesses.
 */
export const RequestRefFrameSchema = z.strictObject({
  t: z.literal('request.ref'),
  id: RequestIdSchema,
  sessionId: IdSchema,
  context: ContextKeySchema,
  deadlineMs: z.int().check(z.positive()),
  op: OperationSchema,
});
/** A request naming its call context. */
export type RequestRefFrame = z.infer<typeof RequestRefFrameSchema>;

/** The MCP client cancelled a request: a read is abandoned, a dispatched mutation runs on. */
export const CancelFrameSchema = z.strictObject({ t: z.literal('cancel'), id: RequestIdSchema });

/** The attachments using a session (for the page's status). */
export const AttachmentsFrameSchema = z.strictObject({
  t: z.literal('attachments'),
  sessionId: IdSchema,
  list: z.array(AttachmentSummarySchema),
});

/** An attachment ended: its subscriptions stop with `attachment-detached`. */
export const AttachmentEndedFrameSchema = z.strictObject({ t: z.literal('attachment.ended'), attachmentId: IdSchema });

/** Any frame the server may send. */
export const ServerFrameSchema = z.discriminatedUnion('t', [
  WelcomeFrameSchema,
  SessionOpenedFrameSchema,
  SessionRefusedFrameSchema,
  RequestFrameSchema,
  ContextFrameSchema,
  RequestRefFrameSchema,
  CancelFrameSchema,
  AttachmentsFrameSchema,
  AttachmentEndedFrameSchema,
  PairProposalFrameSchema,
  PingFrameSchema,
  PongFrameSchema,
]);
/** Any frame the server may send. */
export type ServerFrame = z.infer<typeof ServerFrameSchema>;

/** Context data, re-exported for the relay's users. */
export { ContextDataSchema };

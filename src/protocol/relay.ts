/**
 * The relay protocol between the server and a browser bridge runtime (SPEC §9).
 * Every frame is JSON text, validated against these schemas on arrival on both
 * sides; a malformed or foreign frame closes the socket with a 4xxx code.
 */
import { z } from 'zod';
import { ChannelDescriptorSchema, ControlDescriptorSchema } from './descriptors.js';
import { ContextDataSchema } from './tools/getContext.js';
import { EnvironmentSchema } from './envelope.js';
import { ErrorObjectSchema, RevisionsSchema } from './errors.js';
import { AdapterMaximumSchema, GrantSchema } from './policy.js';
import { AttachmentSummarySchema, SessionInfoSchema } from './resources.js';
import { IdSchema, TargetSchema } from './target.js';
import { ListControlsInputSchema } from './tools/listControls.js';
import { SnapshotFormatSchema } from './tools/snapshot.js';
import { SubscribeInputSchema } from './tools/subscribe.js';

/** Relay protocol version. */
export const RELAY_VERSION = 1;

/** WebSocket close codes the relay uses. */
export const CLOSE_CODES = {
  malformed: 4400,
  unauthorized: 4401,
  forbidden: 4403,
  attachTimeout: 4408,
  tooLarge: 4413,
  heartbeatTimeout: 4420,
  serverShutdown: 4500,
} as const;

const RefSchema = z.string().min(1).max(64);
const RequestIdSchema = z.string().min(1).max(64);
const SecretSchema = z.string().min(16).max(256);

/** A paired host's credential. */
export const CredentialSchema = z.object({ hostId: IdSchema, secret: SecretSchema }).strict();
/** A paired host's credential. */
export type Credential = z.infer<typeof CredentialSchema>;

// ---------------------------------------------------------------- browser → server

/** First frame: prove pairing. */
export const HelloFrameSchema = z
  .object({
    t: z.literal('hello'),
    v: z.literal(RELAY_VERSION),
    agent: z.object({ kind: z.enum(['page', 'extension']), version: z.string().max(32) }).strict(),
    auth: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('pair'), code: z.string().min(1).max(64) }).strict(),
      z.object({ kind: z.literal('credential'), credential: CredentialSchema }).strict(),
    ]),
  })
  .strict();

/**
 * The host's installed vocabulary. The server serves it as the catalog resource
 * and learns from it which controls are mutations, so a call lost with its
 * socket is reported `uncertain_execution` only when it could have changed state.
 */
export const CatalogSchema = z
  .object({ controls: z.array(ControlDescriptorSchema).max(2000), channels: z.array(ChannelDescriptorSchema).max(256) })
  .strict();
/** The host's installed vocabulary. */
export type CatalogDocument = z.infer<typeof CatalogSchema>;

/** Opens (or reopens, with its kept id) one tab's session. */
export const SessionOpenFrameSchema = z
  .object({
    t: z.literal('session.open'),
    ref: RefSchema,
    sessionId: IdSchema.optional(),
    /** The tab's site origin; only the extension may name one (a page's is its socket's). */
    origin: z.string().max(256).optional(),
    info: SessionInfoSchema,
    catalog: CatalogSchema,
  })
  .strict();

/** A session's title, environment or grant changed. */
export const SessionUpdateFrameSchema = z
  .object({
    t: z.literal('session.update'),
    sessionId: IdSchema,
    info: SessionInfoSchema,
    catalog: CatalogSchema.optional(),
  })
  .strict();

/** The tab went away. */
export const SessionCloseFrameSchema = z.object({ t: z.literal('session.close'), sessionId: IdSchema }).strict();

/** The answer to one request. */
export const ResponseFrameSchema = z
  .object({
    t: z.literal('response'),
    id: RequestIdSchema,
    environment: EnvironmentSchema.nullable(),
    outcome: z.discriminatedUnion('ok', [
      z
        .object({
          ok: z.literal(true),
          data: z.unknown(),
          /** Snapshot bytes, base64. */
          image: z
            .object({ mimeType: z.string().max(32), base64: z.string() })
            .strict()
            .optional(),
        })
        .strict(),
      z.object({ ok: z.literal(false), error: ErrorObjectSchema }).strict(),
    ]),
  })
  .strict();

/** Progress of a long request (batch, snapshot). */
export const ProgressFrameSchema = z
  .object({
    t: z.literal('progress'),
    id: RequestIdSchema,
    progress: z.number().nonnegative(),
    total: z.number().nonnegative().optional(),
  })
  .strict();

/** The person asked to end attachments (all, or one). */
export const DetachFrameSchema = z
  .object({ t: z.literal('detach'), sessionId: IdSchema.optional(), attachmentId: IdSchema.optional() })
  .strict();

/** Heartbeat, either way. */
export const PingFrameSchema = z.object({ t: z.literal('ping'), n: z.number().int().nonnegative() }).strict();
/** Heartbeat answer, either way. */
export const PongFrameSchema = z.object({ t: z.literal('pong'), n: z.number().int().nonnegative() }).strict();

/** Any frame a browser may send. */
export const BrowserFrameSchema = z.discriminatedUnion('t', [
  HelloFrameSchema,
  SessionOpenFrameSchema,
  SessionUpdateFrameSchema,
  SessionCloseFrameSchema,
  ResponseFrameSchema,
  ProgressFrameSchema,
  DetachFrameSchema,
  PingFrameSchema,
  PongFrameSchema,
]);
/** Any frame a browser may send. */
export type BrowserFrame = z.infer<typeof BrowserFrameSchema>;

// ---------------------------------------------------------------- server → browser

/** Answer to hello. A pairing answer carries the new credential and the grant the link proposed. */
export const WelcomeFrameSchema = z
  .object({
    t: z.literal('welcome'),
    hostId: IdSchema,
    credential: CredentialSchema.optional(),
    grant: GrantSchema.optional(),
    heartbeatMs: z.number().int().positive(),
    serverVersion: z.string().max(32),
  })
  .strict();

/** A session is open under this id (kept across reconnects of the same tab). */
export const SessionOpenedFrameSchema = z
  .object({ t: z.literal('session.opened'), ref: RefSchema, sessionId: IdSchema })
  .strict();

/** A session could not be opened. */
export const SessionRefusedFrameSchema = z
  .object({ t: z.literal('session.refused'), ref: RefSchema, message: z.string().max(256) })
  .strict();

/** Who is asking: one MCP attachment with its opaque operation namespace. */
export const RequestAttachmentSchema = z
  .object({ attachmentId: IdSchema, namespace: IdSchema, clientName: z.string().max(128) })
  .strict();
/** Who is asking. */
export type RequestAttachment = z.infer<typeof RequestAttachmentSchema>;

/** One call as the page receives it. */
export const RelayCallSchema = z
  .object({
    target: TargetSchema,
    controlId: z.string().min(1).max(256),
    args: z.array(z.unknown()),
    expectedRevisions: RevisionsSchema.optional(),
    requestId: z.string().max(128).optional(),
    /** The caller's operation id, or one the server generated (attachment-unique) when omitted. */
    operationId: z.string().min(1).max(128),
    /** True when the caller supplied the operation id (financial controls require it). */
    callerOperationId: z.boolean(),
  })
  .strict();
/** One call as the page receives it. */
export type RelayCall = z.infer<typeof RelayCallSchema>;

/** What the server asks of a session. */
export const OperationSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('context'), target: TargetSchema }).strict(),
  z.object({ kind: z.literal('listControls'), input: ListControlsInputSchema.omit({ sessionId: true }) }).strict(),
  z.object({ kind: z.literal('call'), call: RelayCallSchema }).strict(),
  z.object({ kind: z.literal('batch'), calls: z.array(RelayCallSchema), stopOnError: z.boolean() }).strict(),
  z.object({ kind: z.literal('subscribe'), input: SubscribeInputSchema }).strict(),
  z
    .object({
      kind: z.literal('snapshot'),
      target: TargetSchema,
      format: SnapshotFormatSchema,
      maxWidth: z.number().int().positive().optional(),
      maxHeight: z.number().int().positive().optional(),
    })
    .strict(),
]);
/** What the server asks of a session. */
export type Operation = z.infer<typeof OperationSchema>;

/** The limits both sides of the relay enforce. */
export const RelayLimitsSchema = z
  .object({
    batchCalls: z.number().int().positive(),
    callArgs: z.number().int().positive(),
    resultBytes: z.number().int().positive(),
    snapshotPixels: z.number().int().positive(),
    snapshotBytes: z.number().int().positive(),
    subscriptionsPerSession: z.number().int().positive(),
    bindingsPerSubscription: z.number().int().positive(),
    bufferedEvents: z.number().int().positive(),
    eventsPerPoll: z.number().int().positive(),
    jsonDepth: z.number().int().positive(),
    stringLength: z.number().int().positive(),
  })
  .strict();
/** The limits both sides enforce. */
export type RelayLimits = z.infer<typeof RelayLimitsSchema>;

/** One request to a session. */
export const RequestFrameSchema = z
  .object({
    t: z.literal('request'),
    id: RequestIdSchema,
    sessionId: IdSchema,
    attachment: RequestAttachmentSchema,
    adapter: AdapterMaximumSchema,
    limits: RelayLimitsSchema,
    deadlineMs: z.number().int().positive(),
    op: OperationSchema,
  })
  .strict();
/** One request to a session. */
export type RequestFrame = z.infer<typeof RequestFrameSchema>;

/** The MCP client cancelled a request: a read is abandoned, a dispatched mutation runs on. */
export const CancelFrameSchema = z.object({ t: z.literal('cancel'), id: RequestIdSchema }).strict();

/** The attachments using a session (for the page's status). */
export const AttachmentsFrameSchema = z
  .object({ t: z.literal('attachments'), sessionId: IdSchema, list: z.array(AttachmentSummarySchema) })
  .strict();

/** An attachment ended: its subscriptions stop with `attachment-detached`. */
export const AttachmentEndedFrameSchema = z
  .object({ t: z.literal('attachment.ended'), attachmentId: IdSchema })
  .strict();

/** Any frame the server may send. */
export const ServerFrameSchema = z.discriminatedUnion('t', [
  WelcomeFrameSchema,
  SessionOpenedFrameSchema,
  SessionRefusedFrameSchema,
  RequestFrameSchema,
  CancelFrameSchema,
  AttachmentsFrameSchema,
  AttachmentEndedFrameSchema,
  PingFrameSchema,
  PongFrameSchema,
]);
/** Any frame the server may send. */
export type ServerFrame = z.infer<typeof ServerFrameSchema>;

/** Context data, re-exported for the relay's users. */
export { ContextDataSchema };

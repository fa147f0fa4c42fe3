/**
 * The hub link (SPEC §9): the loopback WebSocket between an MCP front (a
 * server process that does not own the relay port) and the hub that does.
 * Every frame is JSON text validated against these schemas on arrival, on both
 * sides. A front sends its own adapter maximum and limits with every request:
 * the hub adds no permission of its own.
 */
import * as z from 'zod/mini';
import { EnvironmentSchema } from '../envelope.js';
import { ErrorObjectSchema } from '../errors.js';
import { AdapterMaximumSchema, GrantSchema } from '../policy.js';
import { CatalogResourceSchema, OperationSchema, RelayLimitsSchema } from './relay.js';
import { AttachmentTransportSchema, SessionSummarySchema } from '../resources.js';
import { IdSchema } from '../target.js';

/** Front link protocol version. */
export const HUB_LINK_VERSION = 1;
/** The path of the hub link on the hub's port. */
export const HUB_LINK_PATH = '/front';
/** The subprotocol a front offers. */
export const HUB_LINK_SUBPROTOCOL = 'tradescript.front.v1';

const RefSchema = z.string().check(z.minLength(1), z.maxLength(64));
const LinkRequestIdSchema = z.string().check(z.minLength(1), z.maxLength(64));
const OriginListSchema = z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.maxLength(64));

/**
 * An attachment a front keeps across hubs: the same id and operation
 * namespace, and the hosts whose person detached it (SPEC §2), so a new hub
 * keeps the person's choice.
 */
export const ResumedAttachmentSchema = z.strictObject({
  attachmentId: IdSchema,
  namespace: IdSchema,
  detachedHosts: z.optional(z.array(IdSchema).check(z.maxLength(256))),
});

/** What an attachment reports about itself. */
export const LinkAttachmentInfoSchema = z.strictObject({
  clientName: z.string().check(z.maxLength(128)),
  transport: AttachmentTransportSchema,
});

/** A session's answer, or the hub's own routing, deadline or loss error. */
export const HubOutcomeSchema = z.discriminatedUnion('ok', [
  z.strictObject({
    ok: z.literal(true),
    data: z.unknown(),
    image: z.optional(z.strictObject({ mimeType: z.string().check(z.maxLength(32)), base64: z.string() })),
    environment: z.nullable(EnvironmentSchema),
  }),
  z.strictObject({ ok: z.literal(false), error: ErrorObjectSchema, environment: z.nullable(EnvironmentSchema) }),
]);

// ---------------------------------------------------------------- follower → hub

/** Any frame a follower process (its MCP front) may send. */
export const FollowerLinkFrameSchema = z.discriminatedUnion('t', [
  z.strictObject({
    t: z.literal('hello'),
    v: z.literal(HUB_LINK_VERSION),
    pid: z.int().check(z.nonnegative()),
    /** Origins this front's pages open the relay from (its `--allowed-origin`s, its demo's). */
    relayOrigins: OriginListSchema,
  }),
  z.strictObject({
    t: z.literal('attach'),
    ref: RefSchema,
    info: LinkAttachmentInfoSchema,
    resume: z.optional(ResumedAttachmentSchema),
  }),
  z.strictObject({ t: z.literal('detach'), ref: RefSchema, attachmentId: IdSchema }),
  z.strictObject({ t: z.literal('sessions'), ref: RefSchema }),
  /** `maxBytes`: the front's own `resultBytes`, which the catalog resource must fit. */
  z.strictObject({ t: z.literal('catalog'), ref: RefSchema, maxBytes: z.int().check(z.positive()) }),
  z.strictObject({ t: z.literal('pair'), ref: RefSchema, grant: GrantSchema }),
  z.strictObject({
    t: z.literal('request'),
    id: LinkRequestIdSchema,
    attachmentId: IdSchema,
    sessionId: IdSchema,
    op: OperationSchema,
    adapter: AdapterMaximumSchema,
    limits: RelayLimitsSchema,
    deadlineMs: z.int().check(z.positive()),
    /** True when the MCP client asked for progress. */
    progress: z.boolean(),
  }),
  z.strictObject({ t: z.literal('cancel'), id: LinkRequestIdSchema }),
]);
/** Any frame a follower process (its MCP front) may send. */
export type FollowerLinkFrame = z.infer<typeof FollowerLinkFrameSchema>;

// ---------------------------------------------------------------- hub → front

/** The answer to one `ref` frame. */
export const LinkReplySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('attached'), attachmentId: IdSchema, namespace: IdSchema }),
  z.strictObject({ kind: z.literal('done') }),
  z.strictObject({ kind: z.literal('sessions'), sessions: z.array(SessionSummarySchema) }),
  z.strictObject({ kind: z.literal('catalog'), catalog: CatalogResourceSchema }),
  z.strictObject({
    kind: z.literal('paired'),
    code: z.string().check(z.minLength(1), z.maxLength(64)),
    expiresAt: z.string().check(z.maxLength(64)),
  }),
  z.strictObject({ kind: z.literal('failed'), message: z.string().check(z.maxLength(256)) }),
]);
/** The answer to one `ref` frame. */
export type LinkReply = z.infer<typeof LinkReplySchema>;

/** A hub event, as the front's MCP connections hear it. */
export const LinkEventSchema = z.discriminatedUnion('name', [
  z.strictObject({ name: z.literal('sessionsChanged') }),
  z.strictObject({ name: z.literal('sessionUpdated'), sessionId: IdSchema }),
  z.strictObject({ name: z.literal('attachmentEnded'), attachmentId: IdSchema }),
  z.strictObject({ name: z.literal('attachmentDetached'), attachmentId: IdSchema, hostId: IdSchema }),
]);

/** Any frame the hub may send to a follower process. */
export const HubLinkFrameSchema = z.discriminatedUnion('t', [
  z.strictObject({
    t: z.literal('welcome'),
    v: z.literal(HUB_LINK_VERSION),
    pid: z.int().check(z.nonnegative()),
    serverVersion: z.string().check(z.maxLength(32)),
    relayUrl: z.string().check(z.maxLength(512)),
  }),
  z.strictObject({ t: z.literal('reply'), ref: RefSchema, reply: LinkReplySchema }),
  z.strictObject({
    t: z.literal('accepted'),
    id: LinkRequestIdSchema,
    /** Control ids of the operation the session's catalog knows as reads; any other may mutate. */
    reads: z.array(z.string().check(z.maxLength(256))).check(z.maxLength(64)),
    environment: z.nullable(EnvironmentSchema),
  }),
  z.strictObject({
    t: z.literal('progress'),
    id: LinkRequestIdSchema,
    progress: z.number().check(z.nonnegative()),
    total: z.optional(z.number().check(z.nonnegative())),
  }),
  z.strictObject({ t: z.literal('outcome'), id: LinkRequestIdSchema, outcome: HubOutcomeSchema }),
  z.strictObject({ t: z.literal('event'), event: LinkEventSchema }),
]);
/** Any frame the hub may send to a follower process. */
export type HubLinkFrame = z.infer<typeof HubLinkFrameSchema>;

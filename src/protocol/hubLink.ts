/**
 * The front link (SPEC §9): the loopback WebSocket between an MCP front (a
 * server process that does not own the relay port) and the hub that does.
 * Every frame is JSON text validated against these schemas on arrival, on both
 * sides. A front sends its own adapter maximum and limits with every request:
 * the hub adds no permission of its own.
 */
import { z } from 'zod';
import { EnvironmentSchema } from './envelope.js';
import { ErrorObjectSchema } from './errors.js';
import { AdapterMaximumSchema, GrantSchema } from './policy.js';
import { CatalogSchema, OperationSchema, RelayLimitsSchema } from './relay.js';
import { AttachmentTransportSchema, SessionSummarySchema } from './resources.js';
import { IdSchema } from './target.js';

/** Front link protocol version. */
export const HUB_LINK_VERSION = 1;
/** The path of the front link on the hub's port. */
export const HUB_LINK_PATH = '/front';
/** The subprotocol a front offers. */
export const HUB_LINK_SUBPROTOCOL = 'tradescript.front.v1';

const RefSchema = z.string().min(1).max(64);
const LinkRequestIdSchema = z.string().min(1).max(64);
const OriginListSchema = z.array(z.string().min(1).max(256)).max(64);

/** An attachment a front keeps across hubs: the same id and operation namespace. */
export const ResumedAttachmentSchema = z.object({ attachmentId: IdSchema, namespace: IdSchema }).strict();

/** What an attachment reports about itself. */
export const LinkAttachmentInfoSchema = z
  .object({ clientName: z.string().max(128), transport: AttachmentTransportSchema })
  .strict();

/** A session's answer, or the hub's own routing, deadline or loss error. */
export const HubOutcomeSchema = z.discriminatedUnion('ok', [
  z
    .object({
      ok: z.literal(true),
      data: z.unknown(),
      image: z
        .object({ mimeType: z.string().max(32), base64: z.string() })
        .strict()
        .optional(),
      environment: EnvironmentSchema.nullable(),
    })
    .strict(),
  z.object({ ok: z.literal(false), error: ErrorObjectSchema, environment: EnvironmentSchema.nullable() }).strict(),
]);

// ---------------------------------------------------------------- front → hub

/** Any frame a front may send. */
export const FrontLinkFrameSchema = z.discriminatedUnion('t', [
  z
    .object({
      t: z.literal('hello'),
      v: z.literal(HUB_LINK_VERSION),
      pid: z.number().int().nonnegative(),
      /** Origins this front's pages open the relay from (its `--allowed-origin`s, its demo's). */
      relayOrigins: OriginListSchema,
    })
    .strict(),
  z
    .object({
      t: z.literal('attach'),
      ref: RefSchema,
      info: LinkAttachmentInfoSchema,
      resume: ResumedAttachmentSchema.optional(),
    })
    .strict(),
  z.object({ t: z.literal('detach'), ref: RefSchema, attachmentId: IdSchema }).strict(),
  z.object({ t: z.literal('sessions'), ref: RefSchema }).strict(),
  z.object({ t: z.literal('catalog'), ref: RefSchema }).strict(),
  z.object({ t: z.literal('pair'), ref: RefSchema, grant: GrantSchema }).strict(),
  z
    .object({
      t: z.literal('request'),
      id: LinkRequestIdSchema,
      attachmentId: IdSchema,
      sessionId: IdSchema,
      op: OperationSchema,
      adapter: AdapterMaximumSchema,
      limits: RelayLimitsSchema,
      deadlineMs: z.number().int().positive(),
      /** True when the MCP client asked for progress. */
      progress: z.boolean(),
    })
    .strict(),
  z.object({ t: z.literal('cancel'), id: LinkRequestIdSchema }).strict(),
]);
/** Any frame a front may send. */
export type FrontLinkFrame = z.infer<typeof FrontLinkFrameSchema>;

// ---------------------------------------------------------------- hub → front

/** The answer to one `ref` frame. */
export const LinkReplySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('attached'), attachmentId: IdSchema, namespace: IdSchema }).strict(),
  z.object({ kind: z.literal('done') }).strict(),
  z.object({ kind: z.literal('sessions'), sessions: z.array(SessionSummarySchema) }).strict(),
  z.object({ kind: z.literal('catalog'), catalog: CatalogSchema }).strict(),
  z.object({ kind: z.literal('paired'), code: z.string().min(1).max(64), expiresAt: z.string().max(64) }).strict(),
  z.object({ kind: z.literal('failed'), message: z.string().max(256) }).strict(),
]);
/** The answer to one `ref` frame. */
export type LinkReply = z.infer<typeof LinkReplySchema>;

/** A hub event, as the front's MCP connections hear it. */
export const LinkEventSchema = z.discriminatedUnion('name', [
  z.object({ name: z.literal('sessionsChanged') }).strict(),
  z.object({ name: z.literal('sessionUpdated'), sessionId: IdSchema }).strict(),
  z.object({ name: z.literal('attachmentEnded'), attachmentId: IdSchema }).strict(),
]);

/** Any frame the hub may send to a front. */
export const HubLinkFrameSchema = z.discriminatedUnion('t', [
  z
    .object({
      t: z.literal('welcome'),
      v: z.literal(HUB_LINK_VERSION),
      pid: z.number().int().nonnegative(),
      serverVersion: z.string().max(32),
      relayUrl: z.string().max(512),
    })
    .strict(),
  z.object({ t: z.literal('reply'), ref: RefSchema, reply: LinkReplySchema }).strict(),
  z
    .object({
      t: z.literal('accepted'),
      id: LinkRequestIdSchema,
      /** Control ids of the operation the session's catalog knows as reads; any other may mutate. */
      reads: z.array(z.string().max(256)).max(64),
      environment: EnvironmentSchema.nullable(),
    })
    .strict(),
  z
    .object({
      t: z.literal('progress'),
      id: LinkRequestIdSchema,
      progress: z.number().nonnegative(),
      total: z.number().nonnegative().optional(),
    })
    .strict(),
  z.object({ t: z.literal('outcome'), id: LinkRequestIdSchema, outcome: HubOutcomeSchema }).strict(),
  z.object({ t: z.literal('event'), event: LinkEventSchema }).strict(),
]);
/** Any frame the hub may send to a front. */
export type HubLinkFrame = z.infer<typeof HubLinkFrameSchema>;

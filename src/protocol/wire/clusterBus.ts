/**
 * Cluster mode (SPEC §14): what nodes of one cluster exchange through Redis.
 * Each node has an inbox channel (requests forwarded to the node that holds a
 * session's socket, their answers, ownership hand-overs) and every node hears
 * one events channel (sessions changing, attachments coming and going, hosts
 * revoked). What a node stores in Redis (sessions, credentials) is here too.
 * Every message and record is JSON validated against these schemas on arrival:
 * Redis is shared infrastructure, not a trusted peer.
 */
import * as z from 'zod/mini';
import { AdapterMaximumSchema, GrantSchema } from '../policy.js';
import { HubOutcomeSchema, LinkAttachmentInfoSchema, ResumedAttachmentSchema } from './hubLink.js';
import { CatalogSchema, OperationSchema, RelayLimitsSchema } from './relay.js';
import { AttachmentSummarySchema, SessionInfoSchema } from '../resources.js';
import { IdSchema } from '../target.js';

/** Who a bearer credential names: a tenant of the cluster (a trader, a desk). */
export const PrincipalSchema = z.string().check(z.regex(/^[A-Za-z0-9._@:+-]{1,128}$/));
/** A tenant of the cluster. */
export type Principal = z.infer<typeof PrincipalSchema>;

/** A node's id: random, chosen at start. */
export const NodeIdSchema = z.string().check(z.regex(/^n_[A-Za-z0-9_-]{8,64}$/));

const BusIdSchema = z.string().check(z.minLength(1), z.maxLength(96));

// ---------------------------------------------------------------- inbox (one node)

/** Every message a node's inbox may carry. */
export const InboxMessageSchema = z.discriminatedUnion('t', [
  /** A request for a session whose socket the receiving node holds. */
  z.strictObject({
    t: z.literal('request'),
    id: BusIdSchema,
    from: NodeIdSchema,
    principal: PrincipalSchema,
    sessionId: IdSchema,
    attachment: ResumedAttachmentSchema,
    info: LinkAttachmentInfoSchema,
    op: OperationSchema,
    adapter: AdapterMaximumSchema,
    limits: RelayLimitsSchema,
    deadlineMs: z.int().check(z.positive()),
    /** True when the MCP client asked for progress. */
    progress: z.boolean(),
  }),
  /** The MCP client cancelled: a read is abandoned, a dispatched mutation runs on. */
  z.strictObject({ t: z.literal('cancel'), id: BusIdSchema }),
  z.strictObject({
    t: z.literal('progress'),
    id: BusIdSchema,
    progress: z.number().check(z.nonnegative()),
    total: z.optional(z.number().check(z.nonnegative())),
  }),
  z.strictObject({ t: z.literal('outcome'), id: BusIdSchema, outcome: HubOutcomeSchema }),
  /** The receiving node does not hold the session's socket (any more): nothing was sent to a tab. */
  z.strictObject({ t: z.literal('notHere'), id: BusIdSchema }),
  /** A tab reconnected to another node with its kept id: let go of it unless its socket is still here. */
  z.strictObject({ t: z.literal('release'), id: BusIdSchema, from: NodeIdSchema, sessionId: IdSchema }),
  /** The answer to `release`: `held` when the session's socket is still open here (a duplicated tab). */
  z.strictObject({ t: z.literal('released'), id: BusIdSchema, held: z.boolean() }),
]);
/** Every message a node's inbox may carry. */
export type InboxMessage = z.infer<typeof InboxMessageSchema>;

// ---------------------------------------------------------------- events (every node)

/** Every message of the events channel. */
export const ClusterEventSchema = z.discriminatedUnion('t', [
  /** A principal's sessions changed: one (`sessionId`) or the list (null). */
  z.strictObject({
    t: z.literal('sessions'),
    from: NodeIdSchema,
    principal: PrincipalSchema,
    sessionId: z.nullable(IdSchema),
  }),
  /** An MCP client attached on node `from`. */
  z.strictObject({
    t: z.literal('attached'),
    from: NodeIdSchema,
    principal: PrincipalSchema,
    attachment: ResumedAttachmentSchema,
    info: LinkAttachmentInfoSchema,
  }),
  /** An attachment ended: the last node whose MCP client used it let go (its client left, or idled out). */
  z.strictObject({
    t: z.literal('detached'),
    from: NodeIdSchema,
    principal: PrincipalSchema,
    attachmentId: IdSchema,
  }),
  /** The person at a tab of `hostId` ended this attachment's use of that host ("detach", SPEC §2). */
  z.strictObject({
    t: z.literal('hostDetached'),
    from: NodeIdSchema,
    principal: PrincipalSchema,
    attachmentId: IdSchema,
    hostId: IdSchema,
  }),
  /** A host's credential was revoked: its sessions close everywhere. */
  z.strictObject({ t: z.literal('revoked'), from: NodeIdSchema, principal: PrincipalSchema, hostId: IdSchema }),
  /** A node came back after Redis was away: every listener should re-read. */
  z.strictObject({ t: z.literal('resync'), from: NodeIdSchema }),
]);
/** Every message of the events channel. */
export type ClusterEvent = z.infer<typeof ClusterEventSchema>;

// ---------------------------------------------------------------- stored records

/** A session as the cluster lists it; `node` holds (or last held) its socket. */
export const ClusterSessionRecordSchema = z.strictObject({
  sessionId: IdSchema,
  principal: PrincipalSchema,
  hostId: IdSchema,
  node: NodeIdSchema,
  origin: z.string().check(z.maxLength(256)),
  hostKind: z.enum(['page', 'extension']),
  info: SessionInfoSchema,
  openedAt: z.string().check(z.maxLength(64)),
  connected: z.boolean(),
  /** Control ids the session's catalog declares as reads; any other may mutate. */
  reads: z.array(z.string().check(z.maxLength(256))).check(z.maxLength(2000)),
});
/** A session as the cluster lists it. */
export type ClusterSessionRecord = z.infer<typeof ClusterSessionRecordSchema>;

/** A session's vocabulary, stored apart from its record (it is larger and changes rarely). */
export const ClusterCatalogRecordSchema = CatalogSchema;

/** A closed session: who had it, so only that host may reopen the id. */
export const ClusterTombstoneSchema = z.strictObject({ principal: PrincipalSchema, hostId: IdSchema });

/** A paired host's credential: a hash of its secret, never the secret. */
export const ClusterCredentialRecordSchema = z.strictObject({
  hostId: IdSchema,
  principal: PrincipalSchema,
  secretHash: z.string().check(z.minLength(1), z.maxLength(128)),
  origin: z.string().check(z.maxLength(256)),
  hostKind: z.enum(['page', 'extension']),
  pairedAt: z.string().check(z.maxLength(64)),
});
/** A paired host's credential record. */
export type ClusterCredentialRecord = z.infer<typeof ClusterCredentialRecordSchema>;

/** A live pairing code (stored under a hash of principal and code): the grant its link proposes. */
export const ClusterCodeRecordSchema = z.strictObject({ grant: GrantSchema });

/** An MCP attachment as its principal's sessions list it, with the node its client talks to. */
export const ClusterAttachmentRecordSchema = z.strictObject({
  summary: AttachmentSummarySchema,
  namespace: IdSchema,
  node: NodeIdSchema,
});
/** An MCP attachment as stored. */
export type ClusterAttachmentRecord = z.infer<typeof ClusterAttachmentRecordSchema>;

/** A node's membership record (its lease key's value). */
export const ClusterNodeRecordSchema = z.strictObject({
  nodeId: NodeIdSchema,
  url: z.string().check(z.maxLength(512)),
  pid: z.int().check(z.nonnegative()),
  startedAt: z.string().check(z.maxLength(64)),
  version: z.string().check(z.maxLength(32)),
});
/** A node's membership record. */
export type ClusterNodeRecord = z.infer<typeof ClusterNodeRecordSchema>;

/** Parses JSON text against a schema; null when it is not JSON or does not fit. */
export function parseClusterJson<T>(schema: z.ZodMiniType<T>, text: string | null | undefined): T | null {
  if (typeof text !== 'string') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = z.safeParse(schema, value);
  return parsed.success ? parsed.data : null;
}

/**
 * What a node reads from Redis about the cluster (SPEC §14): where a session
 * is (its record and owner lease), a principal's sessions, vocabularies and
 * attachments, and node membership. Every record is validated on the way in.
 */
import { MAX_LISTED_SESSIONS, type AttachmentSummary, type CatalogDocument } from '../../protocol/index.js';
import {
  ClusterAttachmentRecordSchema,
  ClusterCatalogRecordSchema,
  ClusterSessionRecordSchema,
  ClusterTombstoneSchema,
  parseClusterJson,
  type ClusterAttachmentRecord,
  type ClusterNodeRecord,
  type ClusterSessionRecord,
} from '../../protocol/wire/clusterBus.js';
import { keys } from './clusterKeys.js';
import type { CommandClient } from './redisClients.js';

/** How long the hosts the person detached an attachment from are remembered (its handle may come back). */
export const DETACHED_KEPT_MS = 30 * 24 * 60 * 60_000;

/** Most detached hosts one attachment carries (as a resumed attachment may). */
const MAX_DETACHED_HOSTS = 256;

function attachmentField(attachmentId: string, node: string): string {
  return `${attachmentId}@${node}`;
}

/** Where one session stands, as Redis says. */
export type SessionRoute =
  | { kind: 'live'; record: ClusterSessionRecord; owner: string | null }
  | { kind: 'closed'; principal: string }
  | { kind: 'unknown' };

/** Reads and the few writes that are not a session's own. */
export class ClusterStore {
  constructor(private readonly redis: () => CommandClient) {}

  /** A session's record and owner lease (one round trip). */
  async route(sessionId: string): Promise<SessionRoute> {
    const [record, owner, tombstone] = await this.redis().mget(
      keys.session(sessionId),
      keys.owner(sessionId),
      keys.tombstone(sessionId),
    );
    const live = parseClusterJson(ClusterSessionRecordSchema, record);
    if (live) return { kind: 'live', record: live, owner: owner ?? null };
    const closed = parseClusterJson(ClusterTombstoneSchema, tombstone);
    return closed ? { kind: 'closed', principal: closed.principal } : { kind: 'unknown' };
  }

  /** A principal's sessions (oldest first, bounded) with whether a node holds each one's socket now. */
  async sessionsOf(principal: string): Promise<Array<{ record: ClusterSessionRecord; owned: boolean }>> {
    const redis = this.redis();
    const ids = await redis.smembers(keys.principalSessions(principal));
    if (ids.length === 0) return [];
    const values = await redis.mget(...ids.flatMap((id) => [keys.session(id), keys.owner(id)]));
    const found: Array<{ record: ClusterSessionRecord; owned: boolean }> = [];
    const gone: string[] = [];
    ids.forEach((id, i) => {
      const record = parseClusterJson(ClusterSessionRecordSchema, values[i * 2]);
      if (record?.principal === principal) found.push({ record, owned: values[i * 2 + 1] != null });
      else gone.push(id);
    });
    // Records that expired (their node went away long ago) leave the index too.
    if (gone.length > 0) await redis.srem(keys.principalSessions(principal), ...gone);
    return found.sort((a, b) => a.record.openedAt.localeCompare(b.record.openedAt)).slice(0, MAX_LISTED_SESSIONS);
  }

  /** The vocabularies of sessions. */
  async catalogs(sessionIds: readonly string[]): Promise<CatalogDocument[]> {
    if (sessionIds.length === 0) return [];
    const values = await this.redis().mget(...sessionIds.map(keys.catalog));
    return values.map((v) => parseClusterJson(ClusterCatalogRecordSchema, v)).filter((c) => c !== null);
  }

  /** Records an attachment of `principal` whose client talks to `record.node`. */
  async addAttachment(principal: string, record: ClusterAttachmentRecord): Promise<void> {
    const field = attachmentField(record.summary.attachmentId, record.node);
    await this.redis().hset(keys.principalAttachments(principal), field, JSON.stringify(record));
  }

  /** Forgets that `node` holds an attachment. */
  async removeAttachment(principal: string, attachmentId: string, node: string): Promise<void> {
    await this.redis().hdel(keys.principalAttachments(principal), attachmentField(attachmentId, node));
  }

  /** A principal's attachments, one record per node holding each. */
  async attachmentsOf(principal: string): Promise<ClusterAttachmentRecord[]> {
    const all = await this.redis().hgetall(keys.principalAttachments(principal));
    return Object.values(all)
      .map((v) => parseClusterJson(ClusterAttachmentRecordSchema, v))
      .filter((r) => r !== null)
      .sort((a, b) => a.summary.attachedAt.localeCompare(b.summary.attachedAt));
  }

  /** The nodes holding an attachment of `principal`. */
  async holders(principal: string, attachmentId: string): Promise<string[]> {
    const fields = await this.redis().hkeys(keys.principalAttachments(principal));
    const prefix = attachmentField(attachmentId, '');
    return fields.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length));
  }

  /**
   * A principal's attachments (each once, whichever nodes hold it), with the
   * hosts the person detached each from.
   */
  async attachmentSummaries(principal: string): Promise<Array<{ summary: AttachmentSummary; detached: string[] }>> {
    const unique = new Map<string, AttachmentSummary>();
    for (const r of await this.attachmentsOf(principal)) {
      if (!unique.has(r.summary.attachmentId)) unique.set(r.summary.attachmentId, r.summary);
    }
    const detached = await this.detachedHostsOf([...unique.keys()]);
    return [...unique.values()].map((summary, i) => ({ summary, detached: detached[i] ?? [] }));
  }

  /** Remembers that the person detached an attachment from a host (for {@link DETACHED_KEPT_MS}). */
  async addDetachedHost(attachmentId: string, hostId: string): Promise<void> {
    const key = keys.detachedHosts(attachmentId);
    await this.redis().multi().sadd(key, hostId).pexpire(key, DETACHED_KEPT_MS).exec();
  }

  /** The hosts the person detached each attachment from, in order. */
  async detachedHostsOf(attachmentIds: readonly string[]): Promise<string[][]> {
    if (attachmentIds.length === 0) return [];
    const pipeline = this.redis().pipeline();
    for (const id of attachmentIds) pipeline.smembers(keys.detachedHosts(id));
    const replies = (await pipeline.exec()) ?? [];
    return attachmentIds.map((_, i) => {
      const [error, hosts] = replies[i] ?? [null, []];
      return error || !Array.isArray(hosts) ? [] : (hosts as string[]).slice(0, MAX_DETACHED_HOSTS);
    });
  }

  /**
   * The secret every node shares for stateless attachment handles: made once
   * by whichever node asks first (SET NX), read by the others.
   */
  async handleKey(fresh: () => string): Promise<string> {
    const redis = this.redis();
    await redis.set(keys.handleKey, fresh(), 'NX');
    const key = await redis.get(keys.handleKey);
    if (key === null) throw new Error('the cluster handle key vanished');
    return key;
  }

  /** Renews this node's membership lease. */
  async renewMembership(record: ClusterNodeRecord, leaseMs: number): Promise<void> {
    await this.redis()
      .multi()
      .set(keys.node(record.nodeId), JSON.stringify(record), 'PX', leaseMs)
      .sadd(keys.nodes, record.nodeId)
      .exec();
  }

  /** Ends this node's membership at once (a clean stop). */
  async leave(nodeId: string): Promise<void> {
    await this.redis().multi().del(keys.node(nodeId)).srem(keys.nodes, nodeId).exec();
  }

  /** The nodes whose membership lease is live, among `nodeIds`. */
  async members(nodeIds: readonly string[]): Promise<Set<string>> {
    if (nodeIds.length === 0) return new Set();
    const values = await this.redis().mget(...nodeIds.map(keys.node));
    return new Set(nodeIds.filter((_, i) => values[i] != null));
  }
}

/**
 * Where this node last found sessions held by other nodes (SPEC §14), so a
 * forwarded call costs no Redis read before it is sent. An entry is dropped
 * when the owner writes the session's record again (its `sessions` event),
 * when a forward finds the owner gone or no longer holding the session (the
 * route is then read again; nothing was sent), when Redis goes away, and
 * after `maxAgeMs` in any case.
 */
import type { ClusterSessionRecord } from '../../protocol/wire/clusterBus.js';

interface Entry {
  readonly record: ClusterSessionRecord;
  readonly owner: string;
  readonly reads: ReadonlySet<string>;
  readonly at: number;
}

/** Most entries kept (oldest dropped first). */
const MAX_ENTRIES = 10_000;

/** Sessions held elsewhere, by id. */
export class RouteCache {
  private readonly entries = new Map<string, Entry>();
  /** The reads each session declared when last seen: kept when routes are forgotten (a vocabulary has no owner). */
  private readonly reads = new Map<string, ReadonlySet<string>>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A fresh route to a session held by another node, or undefined. */
  get(sessionId: string): Entry | undefined {
    const entry = this.entries.get(sessionId);
    if (entry && this.now() - entry.at > this.maxAgeMs) this.entries.delete(sessionId);
    return this.entries.get(sessionId);
  }

  /** Remembers that `owner` holds the session of `record`. */
  set(record: ClusterSessionRecord, owner: string): Entry {
    const entry = { record, owner, reads: new Set(record.reads), at: this.now() };
    this.entries.delete(record.sessionId);
    this.entries.set(record.sessionId, entry);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.learnReads(record.sessionId, entry.reads);
    return entry;
  }

  /** Remembers what a session declares as reads. */
  learnReads(sessionId: string, reads: ReadonlySet<string>): void {
    this.reads.delete(sessionId);
    this.reads.set(sessionId, reads);
    if (this.reads.size > MAX_ENTRIES) this.reads.delete(this.reads.keys().next().value as string);
  }

  /** What a session declared as reads when last seen, if it was. */
  readsOf(sessionId: string): ReadonlySet<string> | undefined {
    return this.reads.get(sessionId);
  }

  /** Forgets one session, every session of a principal (`sessionId` null), or everything. */
  forget(sessionId: string | null, principal?: string): void {
    if (sessionId !== null) return void this.entries.delete(sessionId);
    if (principal === undefined) return this.entries.clear();
    for (const [id, entry] of this.entries) if (entry.record.principal === principal) this.entries.delete(id);
  }
}

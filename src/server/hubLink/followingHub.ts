/**
 * The {@link HubPort} of a process that does not own the relay (SPEC §2, §9):
 * it forwards to whichever hub currently serves the home — another process's
 * over the hub link, or this process's own after a takeover — and keeps its
 * MCP connections' attachments across the switch under the same ids and
 * operation namespaces, so their evidence in the page's ledger stays theirs.
 * Calls made while no hub is reachable wait a little for the next one.
 */
import type { CatalogResource, Operation, SessionSummary } from '../../protocol/index.js';
import { HubEmitter } from '../hub/emitter.js';
import type {
  AttachmentHandle,
  AttachmentInfo,
  HubEvents,
  HubOutcome,
  HubPort,
  HubRequestOptions,
} from '../hub/hubPort.js';
import { cancelledOutcome } from '../hub/rules/lostOutcomes.js';
import type { Logger } from '../log.js';
import { LinkClosedError, notSentOutcome } from './remoteHub.js';

/** A hub an attachment can move to under its kept id and namespace, with the hosts the person detached it from. */
export interface ResumableHub extends HubPort {
  resume(
    kept: AttachmentHandle,
    info: AttachmentInfo,
    detachedHosts?: readonly string[],
  ): Promise<AttachmentHandle | null> | AttachmentHandle | null;
}

interface Kept {
  handle: AttachmentHandle;
  info: AttachmentInfo;
  /** Hosts whose person detached it (SPEC §2): a new hub keeps that choice. */
  detachedHosts: Set<string>;
}

/** Options of a {@link FollowingHub}. */
export interface FollowingHubOptions {
  logger: Logger;
  /** How long a call waits for a hub when none is reachable (default 10 s). */
  waitMs?: number;
}

/** A hub port that survives its hub's process. */
export class FollowingHub implements HubPort {
  private backend: ResumableHub | null = null;
  private readonly kept = new Map<string, Kept>();
  private readonly events = new HubEmitter();
  private offs: Array<() => void> = [];
  private waiters = new Set<() => void>();
  private readonly waitMs: number;

  constructor(private readonly options: FollowingHubOptions) {
    this.waitMs = options.waitMs ?? 10_000;
  }

  /** The hub calls go to now, or null while following. */
  get current(): ResumableHub | null {
    return this.backend;
  }

  /**
   * Switches to `hub`: every kept attachment is resumed there first (one the
   * hub refuses ends, as if the person detached it), then calls flow to it.
   */
  async use(hub: ResumableHub): Promise<void> {
    this.lose();
    for (const [id, { handle, info, detachedHosts }] of [...this.kept]) {
      const resumed = await Promise.resolve(hub.resume(handle, info, [...detachedHosts])).catch(() => null);
      // Detached while resuming: do not leave it attached on the new hub.
      if (resumed && !this.kept.has(id)) await hub.detach(id).catch(() => undefined);
      if (resumed) continue;
      this.kept.delete(id);
      this.options.logger.warn('attachment not resumed', { attachmentId: id });
      this.events.emit('attachmentEnded', id);
    }
    this.offs = [
      hub.on('sessionsChanged', () => this.events.emit('sessionsChanged')),
      hub.on('sessionUpdated', (sessionId) => this.events.emit('sessionUpdated', sessionId)),
      hub.on('attachmentEnded', (attachmentId) => {
        this.kept.delete(attachmentId);
        this.events.emit('attachmentEnded', attachmentId);
      }),
      hub.on('attachmentDetached', (attachmentId, hostId) => {
        this.kept.get(attachmentId)?.detachedHosts.add(hostId);
        this.events.emit('attachmentDetached', attachmentId, hostId);
      }),
    ];
    this.backend = hub;
    for (const wake of [...this.waiters]) wake();
    // The sessions may differ from the last hub's (a tab still reconnecting): let clients re-list.
    this.events.emit('sessionsChanged');
  }

  /** The hub went away: calls wait for the next one. */
  lose(): void {
    for (const off of this.offs.splice(0)) off();
    this.backend = null;
  }

  async attach(info: AttachmentInfo): Promise<AttachmentHandle> {
    const hub = await this.whenReachable();
    if (!hub) throw new Error('No TradeScript hub is reachable yet; retry shortly.');
    const handle = await hub.attach(info);
    this.kept.set(handle.attachmentId, { handle, info, detachedHosts: new Set() });
    return handle;
  }

  async resume(kept: AttachmentHandle, info: AttachmentInfo): Promise<AttachmentHandle | null> {
    const hub = await this.whenReachable();
    if (!hub) throw new Error('No TradeScript hub is reachable yet; retry shortly.');
    const handle = await hub.resume(kept, info);
    if (handle) this.kept.set(handle.attachmentId, { handle, info, detachedHosts: new Set() });
    return handle;
  }

  async detach(attachmentId: string): Promise<void> {
    this.kept.delete(attachmentId);
    await this.backend?.detach(attachmentId).catch(() => undefined);
  }

  async listSessions(): Promise<SessionSummary[]> {
    return (await this.retried((hub) => hub.listSessions())) ?? [];
  }

  async catalog(maxBytes: number): Promise<CatalogResource> {
    const empty = { controls: [], channels: [], truncated: false, total: { controls: 0, channels: 0 } };
    return (await this.retried((hub) => hub.catalog(maxBytes))) ?? empty;
  }

  async request(
    attachmentId: string,
    sessionId: string,
    op: Operation,
    options: HubRequestOptions,
  ): Promise<HubOutcome> {
    const hub = await this.whenReachable(options.signal);
    if (options.signal?.aborted) return cancelledOutcome(null);
    if (!hub) return notSentOutcome(op);
    return hub.request(attachmentId, sessionId, op, options);
  }

  on<E extends keyof HubEvents>(event: E, listener: HubEvents[E]): () => void {
    return this.events.on(event, listener);
  }

  /** A read that lost its link mid-way is asked again of the next hub (reads change nothing). */
  private async retried<T>(read: (hub: ResumableHub) => Promise<T>): Promise<T | null> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const hub = await this.whenReachable();
      if (!hub) return null;
      try {
        return await read(hub);
      } catch (error) {
        if (!(error instanceof LinkClosedError)) throw error;
        if (this.backend === hub) this.lose();
      }
    }
    return null;
  }

  /** The current hub, or the next one within the wait; null when none came or `signal` aborted. */
  whenReachable(signal?: AbortSignal): Promise<ResumableHub | null> {
    if (this.backend) return Promise.resolve(this.backend);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve(this.backend);
      };
      const timer = setTimeout(done, this.waitMs);
      timer.unref();
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

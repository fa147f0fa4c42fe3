/**
 * {@link HubPort} over the hub link (SPEC §2, §9): what an MCP front uses when
 * another process owns the relay. Attach, detach, sessions, catalog, requests
 * (with cancellation and progress) and hub events cross the link; every frame
 * from the hub is validated. When the link drops, requests in flight resolve
 * as lost and calls waiting for a reply reject with {@link LinkClosedError}.
 */
import { CLOSE_CODES, makeError, type CatalogResource, type Grant, type Operation } from '../../protocol/index.js';
import {
  HUB_LINK_VERSION,
  type FollowerLinkFrame,
  type HubLinkFrame,
  type LinkReply,
} from '../../protocol/wire/hubLink.js';
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
import type { RelaySocket } from '../relay/relaySocket.js';
import { parseHubFrame } from './linkFrames.js';
import { RemoteRequests } from './remoteRequests.js';

/** The link closed before the hub replied. */
export class LinkClosedError extends Error {
  constructor() {
    super('The link to the TradeScript hub process closed.');
    this.name = 'LinkClosedError';
  }
}

/** What the hub said when the link opened. */
export interface LinkWelcome {
  pid: number;
  serverVersion: string;
  relayUrl: string;
}

/** Options of a {@link RemoteHub}. */
export interface RemoteHubOptions {
  logger: Logger;
  /** Origins this front's pages open the relay from. */
  relayOrigins?: readonly string[];
  /** Time past a request's deadline before the front stops waiting (default 6 s: the hub's reconnect wait and grace). */
  guardMs?: number;
  now?: () => number;
}

type Waiter = { resolve: (reply: LinkReply) => void; reject: (error: Error) => void };

/** A hub in another process, reached over one link socket. */
export class RemoteHub implements HubPort {
  /** Resolves once the hub welcomed this front; rejects when the link closes first. */
  readonly welcome: Promise<LinkWelcome>;
  /** Resolves with the close code once the link is gone. */
  readonly closed: Promise<number>;
  private readonly events = new HubEmitter();
  private readonly waiters = new Map<string, Waiter>();
  private readonly requests: RemoteRequests;
  private readonly logger: Logger;
  private state: 'hello' | 'ready' | 'closed' = 'hello';
  private refs = 0;
  private welcomed: (w: LinkWelcome) => void = () => {};
  private refused: (e: Error) => void = () => {};
  private ended: (code: number) => void = () => {};

  constructor(
    private readonly socket: RelaySocket,
    options: RemoteHubOptions,
  ) {
    this.logger = options.logger;
    const now = options.now ?? Date.now;
    this.requests = new RemoteRequests((id) => this.send({ t: 'cancel', id }), now, options.guardMs ?? 6_000);
    this.welcome = new Promise((resolve, reject) => ((this.welcomed = resolve), (this.refused = reject)));
    this.welcome.catch(() => undefined);
    this.closed = new Promise((resolve) => (this.ended = resolve));
    socket.onmessage = (text) => this.receive(text);
    socket.onclose = (code) => this.lost(code);
    this.send({ t: 'hello', v: HUB_LINK_VERSION, pid: process.pid, relayOrigins: [...(options.relayOrigins ?? [])] });
  }

  /** True while the link is usable. */
  get open(): boolean {
    return this.state === 'ready';
  }

  async attach(info: AttachmentInfo): Promise<AttachmentHandle> {
    const reply = await this.ask({ t: 'attach', ref: this.ref(), info });
    if (reply.kind !== 'attached') throw new Error('The hub refused the attachment.');
    return { attachmentId: reply.attachmentId, namespace: reply.namespace };
  }

  /** Re-registers a kept attachment on this hub; null when the hub refused it. */
  async resume(
    kept: AttachmentHandle,
    info: AttachmentInfo,
    detachedHosts: readonly string[] = [],
  ): Promise<AttachmentHandle | null> {
    const resume = { attachmentId: kept.attachmentId, namespace: kept.namespace, detachedHosts: [...detachedHosts] };
    const reply = await this.ask({ t: 'attach', ref: this.ref(), info, resume });
    return reply.kind === 'attached' ? { attachmentId: reply.attachmentId, namespace: reply.namespace } : null;
  }

  async detach(attachmentId: string): Promise<void> {
    if (this.state !== 'ready') return;
    await this.ask({ t: 'detach', ref: this.ref(), attachmentId }).catch(() => undefined);
  }

  async listSessions() {
    const reply = await this.ask({ t: 'sessions', ref: this.ref() });
    if (reply.kind !== 'sessions') throw new Error('The hub did not list its sessions.');
    return reply.sessions;
  }

  async catalog(maxBytes: number): Promise<CatalogResource> {
    const reply = await this.ask({ t: 'catalog', ref: this.ref(), maxBytes });
    if (reply.kind !== 'catalog') throw new Error('The hub did not send its catalog.');
    return reply.catalog;
  }

  /** Asks the hub for a single-use pairing code. */
  async pair(grant: Grant): Promise<{ code: string; expiresAt: string }> {
    const reply = await this.ask({ t: 'pair', ref: this.ref(), grant });
    if (reply.kind !== 'paired') throw new Error('The hub did not issue a pairing code.');
    return { code: reply.code, expiresAt: reply.expiresAt };
  }

  async request(
    attachmentId: string,
    sessionId: string,
    op: Operation,
    options: HubRequestOptions,
  ): Promise<HubOutcome> {
    if (options.signal?.aborted) return cancelledOutcome(null);
    if (this.state !== 'ready') return notSentOutcome(op);
    return this.requests.dispatch(op, options, (id) => {
      if (this.state !== 'ready') return this.requests.lose(id, 'link');
      this.send({
        t: 'request',
        id,
        attachmentId,
        sessionId,
        op,
        adapter: options.adapter,
        limits: options.limits,
        deadlineMs: options.deadlineMs,
        progress: options.onProgress !== undefined,
      });
    });
  }

  on<E extends keyof HubEvents>(event: E, listener: HubEvents[E]): () => void {
    return this.events.on(event, listener);
  }

  /** Closes the link (the hub detaches this front's attachments). */
  close(): void {
    if (this.state === 'closed') return;
    this.socket.close(1000, 'front closing');
    this.lost(1000);
  }

  private ref(): string {
    return `k${(++this.refs).toString(36)}`;
  }

  private send(frame: FollowerLinkFrame): void {
    if (this.state !== 'closed') this.socket.send(JSON.stringify(frame));
  }

  private ask(frame: Extract<FollowerLinkFrame, { ref: string }>): Promise<LinkReply> {
    if (this.state !== 'ready') return Promise.reject(new LinkClosedError());
    return new Promise((resolve, reject) => {
      this.waiters.set(frame.ref, { resolve, reject });
      this.send(frame);
    });
  }

  private receive(text: string): void {
    if (this.state === 'closed') return;
    const parsed = parseHubFrame(text);
    if (!parsed.ok) return this.fail('malformed hub link frame', parsed.reason);
    const frame = parsed.frame;
    if ((this.state === 'hello') !== (frame.t === 'welcome')) return this.fail('hub link frame out of order');
    this.handle(frame);
  }

  private handle(frame: HubLinkFrame): void {
    switch (frame.t) {
      case 'welcome':
        this.state = 'ready';
        return this.welcomed({ pid: frame.pid, serverVersion: frame.serverVersion, relayUrl: frame.relayUrl });
      case 'reply': {
        const waiter = this.waiters.get(frame.ref);
        if (!waiter) return this.fail('reply to no request');
        this.waiters.delete(frame.ref);
        return waiter.resolve(frame.reply);
      }
      case 'accepted':
        if (!this.requests.accepted(frame.id, frame.reads, frame.environment)) this.logger.debug('late accepted frame');
        return;
      case 'progress':
        this.requests.progress(frame.id, frame.progress, frame.total);
        return;
      case 'outcome':
        return this.requests.finish(frame.id, frame.outcome);
      case 'event':
        return this.emit(frame.event);
    }
  }

  private emit(event: Extract<HubLinkFrame, { t: 'event' }>['event']): void {
    if (event.name === 'sessionsChanged') this.events.emit('sessionsChanged');
    else if (event.name === 'sessionUpdated') this.events.emit('sessionUpdated', event.sessionId);
    else if (event.name === 'attachmentDetached')
      this.events.emit('attachmentDetached', event.attachmentId, event.hostId);
    else this.events.emit('attachmentEnded', event.attachmentId);
  }

  private fail(message: string, reason?: string): void {
    this.logger.warn(message, { reason });
    this.socket.close(CLOSE_CODES.malformed, 'malformed');
    this.lost(CLOSE_CODES.malformed);
  }

  private lost(code: number): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.requests.loseAll('link');
    for (const waiter of this.waiters.values()) waiter.reject(new LinkClosedError());
    this.waiters.clear();
    this.refused(new LinkClosedError());
    this.ended(code);
  }
}

/**
 * The outcome of a request that never left this process (no hub reachable):
 * nothing was sent, so even a call that would mutate can be sent again.
 */
export function notSentOutcome(op: Operation): HubOutcome {
  const message = 'No TradeScript hub process is reachable right now; nothing was sent.';
  const error =
    op.kind === 'call' || op.kind === 'batch'
      ? makeError('session_not_found', `${message} Read tradescript://sessions, then retry.`)
      : makeError('transport_error', `${message} Retry after a short wait.`);
  return { ok: false, error, environment: null };
}

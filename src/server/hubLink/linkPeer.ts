/**
 * One front on the hub's side of the hub link (SPEC §2, §9): its frames are
 * validated, its attachments and requests are its own (another front's id is
 * refused), hub events reach it, and when its link drops its attachments
 * detach and its reads in flight are abandoned. Mutations it sent run on.
 */
import { CLOSE_CODES, makeError, type Grant, type Operation } from '../../protocol/index.js';
import type { FollowerLinkFrame, HubLinkFrame, LinkReply } from '../../protocol/wire/hubLink.js';
import { HUB_LINK_VERSION } from '../../protocol/wire/hubLink.js';
import type { Hub } from '../hub/hub.js';
import { isMutation } from '../hub/rules/lostOutcomes.js';
import type { Logger } from '../log.js';
import type { RelaySocket } from '../relay/relaySocket.js';
import { parseFollowerFrame } from './linkFrames.js';

/** What a peer needs from the process that owns the hub. */
export interface LinkPeerContext {
  hub: Hub;
  logger: Logger;
  serverVersion: string;
  relayUrl: () => string;
  /** Issues a single-use pairing code (for a front that serves its own demo page). */
  pair: (grant: Grant) => { code: string; expiresAt: number };
  /** Lets a front's pages open the relay (its `--allowed-origin`s and its demo's origins). */
  addRelayOrigins: (origins: readonly string[]) => void;
  /** How long a new link has to say hello. */
  helloTimeoutMs: number;
}

type RequestFrame = Extract<FollowerLinkFrame, { t: 'request' }>;
type RefFrame = Exclude<FollowerLinkFrame, { t: 'hello' | 'request' | 'cancel' }>;

let nextPeerId = 1;

/** One connected front. */
export class LinkPeer {
  /** A process-unique id for logs. */
  readonly id = `f${nextPeerId++}`;
  private state: 'hello' | 'ready' | 'closed' = 'hello';
  private readonly attachments = new Set<string>();
  private readonly requests = new Map<string, AbortController>();
  private readonly offs: Array<() => void> = [];
  private readonly helloTimer: NodeJS.Timeout;

  constructor(
    private readonly socket: RelaySocket,
    private readonly ctx: LinkPeerContext,
    private readonly onEnded: (peer: LinkPeer) => void,
  ) {
    socket.onmessage = (text) => this.receive(text);
    socket.onclose = () => this.ended();
    this.helloTimer = setTimeout(() => this.close(CLOSE_CODES.attachTimeout, 'hello timeout'), ctx.helloTimeoutMs);
    this.helloTimer.unref();
  }

  /** Closes the link with a relay close code. */
  close(code: number, reason: string): void {
    if (this.state === 'closed') return;
    this.socket.close(code, reason);
    this.ended();
  }

  private send(frame: HubLinkFrame): void {
    if (this.state !== 'closed') this.socket.send(JSON.stringify(frame));
  }

  private receive(text: string): void {
    if (this.state === 'closed') return;
    const parsed = parseFollowerFrame(text);
    if (!parsed.ok) {
      this.ctx.logger.warn('malformed front link frame', { peer: this.id, reason: parsed.reason });
      return this.close(parsed.reason === 'too-large' ? CLOSE_CODES.tooLarge : CLOSE_CODES.malformed, 'malformed');
    }
    const frame = parsed.frame;
    if ((this.state === 'hello') !== (frame.t === 'hello')) return this.close(CLOSE_CODES.malformed, 'out of order');
    if (frame.t === 'hello') return this.hello(frame.pid, frame.relayOrigins);
    if (frame.t === 'request') return void this.request(frame);
    if (frame.t === 'cancel') return this.requests.get(frame.id)?.abort();
    this.answer(frame).then(
      (reply) => this.send({ t: 'reply', ref: frame.ref, reply }),
      () => this.send({ t: 'reply', ref: frame.ref, reply: { kind: 'failed', message: 'internal error' } }),
    );
  }

  private hello(pid: number, relayOrigins: readonly string[]): void {
    clearTimeout(this.helloTimer);
    this.state = 'ready';
    this.ctx.addRelayOrigins(relayOrigins);
    const { hub } = this.ctx;
    this.offs.push(
      hub.on('sessionsChanged', () => this.send({ t: 'event', event: { name: 'sessionsChanged' } })),
      hub.on('sessionUpdated', (sessionId) => this.send({ t: 'event', event: { name: 'sessionUpdated', sessionId } })),
      hub.on('attachmentEnded', (attachmentId) => {
        if (!this.attachments.delete(attachmentId)) return;
        this.send({ t: 'event', event: { name: 'attachmentEnded', attachmentId } });
      }),
      hub.on('attachmentDetached', (attachmentId, hostId) => {
        if (this.attachments.has(attachmentId))
          this.send({ t: 'event', event: { name: 'attachmentDetached', attachmentId, hostId } });
      }),
    );
    this.send({
      t: 'welcome',
      v: HUB_LINK_VERSION,
      pid: process.pid,
      serverVersion: this.ctx.serverVersion.slice(0, 32),
      relayUrl: this.ctx.relayUrl(),
    });
    this.ctx.logger.info('front linked', { peer: this.id, pid });
  }

  private async answer(frame: RefFrame): Promise<LinkReply> {
    const { hub } = this.ctx;
    switch (frame.t) {
      case 'attach': {
        const handle = frame.resume
          ? hub.resume(frame.resume, frame.info, frame.resume.detachedHosts)
          : await hub.attach(frame.info);
        if (!handle) return { kind: 'failed', message: 'this attachment cannot be resumed' };
        if (this.state === 'closed') {
          await hub.detach(handle.attachmentId);
          return { kind: 'failed', message: 'link closed' };
        }
        this.attachments.add(handle.attachmentId);
        return { kind: 'attached', attachmentId: handle.attachmentId, namespace: handle.namespace };
      }
      case 'detach':
        if (this.attachments.delete(frame.attachmentId)) await hub.detach(frame.attachmentId);
        return { kind: 'done' };
      case 'sessions':
        return { kind: 'sessions', sessions: await hub.listSessions() };
      case 'catalog':
        return { kind: 'catalog', catalog: await hub.catalog(frame.maxBytes) };
      case 'pair': {
        const issued = this.ctx.pair(frame.grant);
        return { kind: 'paired', code: issued.code, expiresAt: new Date(issued.expiresAt).toISOString() };
      }
    }
  }

  private async request(frame: RequestFrame): Promise<void> {
    if (this.requests.has(frame.id)) return this.close(CLOSE_CODES.malformed, 'duplicate request id');
    if (!this.attachments.has(frame.attachmentId)) {
      const error = makeError('internal_error', 'This MCP connection is not attached to the hub.');
      return this.send({ t: 'outcome', id: frame.id, outcome: { ok: false, error, environment: null } });
    }
    const controller = new AbortController();
    this.requests.set(frame.id, controller);
    const session = this.ctx.hub.sessions.get(frame.sessionId);
    const environment = session?.info.environment ?? null;
    this.send({ t: 'accepted', id: frame.id, reads: readsOf(frame.op, session?.vocabulary.document), environment });
    const outcome = await this.ctx.hub
      .request(frame.attachmentId, frame.sessionId, frame.op, {
        adapter: frame.adapter,
        limits: frame.limits,
        deadlineMs: frame.deadlineMs,
        signal: controller.signal,
        ...(frame.progress
          ? { onProgress: (progress, total) => this.send({ t: 'progress', id: frame.id, progress, total }) }
          : {}),
      })
      .catch(() => ({
        ok: false as const,
        error: makeError('internal_error', 'The hub failed to route this request.'),
        environment: null,
      }));
    this.requests.delete(frame.id);
    this.send({ t: 'outcome', id: frame.id, outcome });
  }

  private ended(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    clearTimeout(this.helloTimer);
    for (const off of this.offs.splice(0)) off();
    // The front is gone: its reads are abandoned; a dispatched mutation runs to its recorded outcome.
    for (const controller of this.requests.values()) controller.abort();
    for (const attachmentId of this.attachments) void this.ctx.hub.detach(attachmentId);
    this.attachments.clear();
    this.ctx.logger.info('front unlinked', { peer: this.id });
    this.onEnded(this);
  }
}

/** The operation's control ids the session's catalog knows as reads. */
function readsOf(op: Operation, catalog: Parameters<typeof isMutation>[1] | undefined): string[] {
  if (!catalog) return [];
  const ids = op.kind === 'call' ? [op.call.controlId] : op.kind === 'batch' ? op.calls.map((c) => c.controlId) : [];
  return [...new Set(ids)].filter((id) => !isMutation(id, catalog));
}

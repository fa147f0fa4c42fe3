/**
 * One browser connection's protocol (SPEC §9): every frame is size-checked,
 * parsed and schema-validated; the first must be `hello`; hello and the first
 * session must complete within the attach timeout; an application heartbeat
 * keeps the socket honest. Frames after hello go to the hub.
 */
import {
  CLOSE_CODES,
  FrameQueue,
  RELAY_TIMING,
  RELAY_VERSION,
  type BatchRefusal,
  type BrowserFrame,
  type Grant,
  type ServerFrame,
} from '../../protocol/index.js';
import type { Logger } from '../log.js';
import { encodeServerFrame, MAX_FRAME_BYTES, parseBrowserFrames } from './serverFrames.js';
import type { HelloPeer, HelloVerdict, HostIdentity, RelayAuthenticator } from './relayAuth.js';
import type { RelayPeer, RelaySocket } from './relaySocket.js';
import { SentContexts } from './sentContexts.js';

/** Relay timings; tests inject short ones. */
export interface RelayTiming {
  heartbeatMs: number;
  heartbeatTimeoutMs: number;
  attachTimeoutMs: number;
}

/** The defaults of SPEC §9. */
export const DEFAULT_RELAY_TIMING: RelayTiming = {
  heartbeatMs: RELAY_TIMING.heartbeatMs,
  heartbeatTimeoutMs: RELAY_TIMING.heartbeatTimeoutMs,
  attachTimeoutMs: RELAY_TIMING.attachTimeoutMs,
};

/** A frame the hub handles (everything after hello but the heartbeat and pairing offers). */
export type HubFrame = Exclude<BrowserFrame, { t: 'hello' | 'ping' | 'pong' | 'pair.offer' }>;

/** Where a connection's frames (after hello) and its end go. */
export interface ConnectionSink {
  frame(conn: RelayServerConnection, frame: HubFrame): void;
  closed(conn: RelayServerConnection): void;
}

/** Options of a {@link RelayServerConnection}. */
export interface RelayServerConnectionOptions {
  auth: RelayAuthenticator;
  sink: ConnectionSink;
  logger: Logger;
  serverVersion: string;
  /** Whether this server was started with `--enable-trading`; the welcome tells the page. */
  tradingEnabled?: boolean;
  timing?: Partial<RelayTiming>;
  maxFrameBytes?: number;
}

const EXTENSION_ORIGIN = /^chrome-extension:\/\/[a-p]{32}$/;
let nextConnectionId = 1;

/** One browser connection after upgrade. */
export class RelayServerConnection {
  /** A process-unique id for logs. */
  readonly id = `c${nextConnectionId++}`;
  /** Set once hello succeeded. */
  host: HostIdentity | null = null;
  private state: 'hello' | 'authenticating' | 'authenticated' | 'attached' | 'closed' = 'hello';
  private readonly timing: RelayTiming;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly silence: NodeJS.Timeout;
  private pingCount = 0;
  private readonly probes = new Set<(alive: boolean) => void>();
  /**
   * On a batch socket, frames sent in one turn wait for its end (`nextTick`,
   * not a microtask: the hub's answers to calls in flight are sent from
   * separate promise jobs of one turn, which a microtask flush would not share).
   */
  private readonly out: FrameQueue | null;
  /** The call contexts sent on this socket, when it negotiated them. */
  private readonly contexts: SentContexts | null;

  constructor(
    private readonly socket: RelaySocket,
    readonly peer: RelayPeer,
    private readonly options: RelayServerConnectionOptions,
  ) {
    this.timing = { ...DEFAULT_RELAY_TIMING, ...options.timing };
    this.out = socket.batch
      ? new FrameQueue(
          (text) => socket.send(text),
          (flush) => process.nextTick(flush),
        )
      : null;
    this.contexts = socket.contexts ? new SentContexts() : null;
    socket.onmessage = (text) => this.receive(text);
    socket.onclose = (code) => this.ended(code);
    this.timers.push(this.timer(this.timing.attachTimeoutMs, () => this.attachExpired()));
    this.silence = this.timer(this.timing.heartbeatTimeoutMs, () =>
      this.fail(CLOSE_CODES.heartbeatTimeout, 'heartbeat timeout'),
    );
    this.timers.push(this.silence);
  }

  /** True until the socket closed. */
  get open(): boolean {
    return this.state !== 'closed';
  }

  /**
   * Sends one frame (on a batch socket, at the end of this turn); a no-op once
   * closed. On a socket that negotiated call contexts a request goes as its
   * context, when the page does not hold it yet, and a `request.ref`.
   */
  send(frame: ServerFrame): void {
    if (this.state === 'closed') return;
    if (this.contexts && frame.t === 'request') {
      for (const part of this.contexts.frames(frame)) this.write(part);
    } else this.write(frame);
  }

  private write(frame: ServerFrame): void {
    const text = encodeServerFrame(frame);
    if (this.out) this.out.push(text);
    else this.socket.send(text);
  }

  /**
   * Asks the tab whether this socket still reaches it: a ping, and true as
   * soon as any frame arrives, false after `timeoutMs` of silence or a close.
   * (A cluster node asks before letting another node take a session over.)
   */
  probe(timeoutMs: number): Promise<boolean> {
    if (this.state === 'closed') return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (alive: boolean) => {
        clearTimeout(timer);
        this.probes.delete(done);
        resolve(alive);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      timer.unref();
      this.probes.add(done);
      this.send({ t: 'ping', n: ++this.pingCount });
    });
  }

  /** The first session opened: the attach deadline no longer applies. */
  markAttached(): void {
    if (this.state === 'authenticated') this.state = 'attached';
  }

  /** Closes the socket with a relay close code and a reason the page may show. */
  close(code: number, reason: string): void {
    if (this.state === 'closed') return;
    // What was sent before the close goes out before it.
    this.out?.flush();
    this.socket.close(code, reason);
    this.ended(code);
  }

  private receive(text: string): void {
    if (this.state === 'closed') return;
    this.silence.refresh();
    for (const probe of [...this.probes]) probe(true);
    const parsed = parseBrowserFrames(text, this.options.maxFrameBytes ?? MAX_FRAME_BYTES, this.socket.batch === true);
    if (!parsed.ok) return this.refuse(parsed.reason);
    for (const frame of parsed.frames) {
      // A frame of the batch may have closed the socket: the rest of it is not acted on.
      if (!this.open) return;
      this.dispatch(frame);
    }
  }

  /** Closes for a refused message: too large (4413), or malformed or an unnegotiated batch (4400). */
  private refuse(reason: BatchRefusal): void {
    if (reason === 'too-large') return this.fail(CLOSE_CODES.tooLarge, 'frame too large', reason);
    this.fail(CLOSE_CODES.malformed, reason === 'batch-not-negotiated' ? reason : 'malformed frame', reason);
  }

  private dispatch(frame: BrowserFrame): void {
    if (frame.t === 'ping') return this.send({ t: 'pong', n: frame.n });
    if (frame.t === 'pong') return;
    if (this.state === 'hello')
      return frame.t === 'hello' ? this.hello(frame) : this.fail(CLOSE_CODES.malformed, 'expected hello', 'not-hello');
    if (frame.t === 'hello') return this.fail(CLOSE_CODES.malformed, 'unexpected hello', 'second-hello');
    if (this.state === 'authenticating') return this.fail(CLOSE_CODES.malformed, 'expected welcome', 'before-welcome');
    if (frame.t === 'pair.offer') return this.pairOffer(frame);
    this.options.sink.frame(this, frame);
  }

  private hello(frame: Extract<BrowserFrame, { t: 'hello' }>): void {
    const hostKind = frame.agent.kind;
    if (hostKind === 'extension' && !EXTENSION_ORIGIN.test(this.peer.origin)) {
      return this.fail(CLOSE_CODES.forbidden, 'extension hello from a page origin', 'kind-origin');
    }
    const verdict = this.options.auth.authenticate(frame.auth, this.helloPeer(hostKind));
    if (!(verdict instanceof Promise)) return this.welcome(frame, verdict);
    this.state = 'authenticating';
    verdict.then(
      (answer) => this.welcome(frame, answer),
      () => this.fail(CLOSE_CODES.serverShutdown, 'pairing store unavailable; reconnecting', 'auth-unavailable'),
    );
  }

  private helloPeer(hostKind: HostIdentity['hostKind']): HelloPeer {
    const peer: HelloPeer = { origin: this.peer.origin, hostKind };
    if (this.peer.principal !== undefined) peer.principal = this.peer.principal;
    return peer;
  }

  private welcome(frame: Extract<BrowserFrame, { t: 'hello' }>, verdict: HelloVerdict): void {
    if (this.state === 'closed') return;
    const hostKind = frame.agent.kind;
    if (!verdict.ok) return this.fail(CLOSE_CODES.unauthorized, verdict.reason, `auth-${frame.auth.kind}`);
    this.host = { hostId: verdict.hostId, hostKind, origin: this.peer.origin };
    if (this.peer.principal !== undefined) this.host.principal = this.peer.principal;
    this.state = 'authenticated';
    this.send({
      t: 'welcome',
      hostId: verdict.hostId,
      ...(verdict.credential ? { credential: verdict.credential } : {}),
      ...(verdict.grant ? { grant: verdict.grant } : {}),
      heartbeatMs: this.timing.heartbeatMs,
      serverVersion: this.options.serverVersion,
      tradingEnabled: this.options.tradingEnabled ?? false,
    });
    const beat = setInterval(() => this.send({ t: 'ping', n: ++this.pingCount }), this.timing.heartbeatMs);
    beat.unref();
    this.timers.push(beat);
    this.options.logger.debug('hello accepted', {
      conn: this.id,
      hostId: verdict.hostId,
      kind: hostKind,
      relay: RELAY_VERSION,
    });
  }

  /** A pairing link opened in this paired tab: the code's proposed grant, for the person to accept or decline. */
  private pairOffer(frame: Extract<BrowserFrame, { t: 'pair.offer' }>): void {
    const proposal = this.options.auth.proposal?.(frame.code, this.helloPeer(this.host?.hostKind ?? 'page')) ?? null;
    if (!(proposal instanceof Promise)) return this.answerOffer(frame.ref, proposal);
    proposal.then(
      (grant) => this.answerOffer(frame.ref, grant),
      () => this.answerOffer(frame.ref, null),
    );
  }

  private answerOffer(ref: string, grant: Grant | null): void {
    if (this.state === 'closed') return;
    this.options.logger.info('pairing link opened in a paired tab', {
      conn: this.id,
      hostId: this.host?.hostId,
      proposed: grant ?? 'refused',
    });
    this.send({
      t: 'pair.proposal',
      ref,
      grant,
      ...(grant === null ? { message: this.options.auth.codeRefused ?? 'pairing code expired or used' } : {}),
    });
  }

  private attachExpired(): void {
    if (this.state === 'hello' || this.state === 'authenticating' || this.state === 'authenticated') {
      this.fail(CLOSE_CODES.attachTimeout, 'attach timeout');
    }
  }

  /** Closes for a protocol reason, logging the reason code only (never content). */
  private fail(code: number, reason: string, logReason: string = reason): void {
    if (this.state === 'closed') return;
    this.options.logger.warn('closing relay socket', {
      conn: this.id,
      code,
      reason: logReason,
      hostId: this.host?.hostId,
    });
    this.close(code, reason);
  }

  private ended(_code: number): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.out?.clear();
    for (const t of this.timers) clearTimeout(t);
    for (const probe of [...this.probes]) probe(false);
    this.options.sink.closed(this);
  }

  private timer(ms: number, run: () => void): NodeJS.Timeout {
    const t = setTimeout(run, ms);
    t.unref();
    return t;
  }
}

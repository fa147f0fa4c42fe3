/**
 * One browser connection's protocol (SPEC §9): every frame is size-checked,
 * parsed and schema-validated; the first must be `hello`; hello and the first
 * session must complete within the attach timeout; an application heartbeat
 * keeps the socket honest. Frames after hello go to the hub.
 */
import {
  CLOSE_CODES,
  RELAY_TIMING,
  RELAY_VERSION,
  type BrowserFrame,
  type Credential,
  type Grant,
  type ServerFrame,
} from '../../protocol/index.js';
import type { Logger } from '../log.js';
import { encodeServerFrame, MAX_FRAME_BYTES, parseBrowserFrame } from './frames.js';
import type { RelayPeer, RelaySocket } from './socket.js';

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

/** Who a connection turned out to be after hello. */
export interface HostIdentity {
  hostId: string;
  hostKind: 'page' | 'extension';
  /** The socket's origin (a page's own, or the extension's). */
  origin: string;
}

type HelloAuth = Extract<BrowserFrame, { t: 'hello' }>['auth'];

/** The verdict on a hello: a host (with a new credential when pairing), or a reason for the person. */
export type HelloVerdict =
  { ok: true; hostId: string; credential?: Credential; grant?: Grant } | { ok: false; reason: string };

/** Exchanges a pairing code or verifies a credential (the pairing module). */
export interface RelayAuthenticator {
  authenticate(auth: HelloAuth, peer: { origin: string; hostKind: HostIdentity['hostKind'] }): HelloVerdict;
  /**
   * Spends a pairing code offered by a tab already paired, for the grant its
   * link proposes (the tab asks the person); null when expired or used.
   */
  proposal?(code: string): Grant | null;
  /** What the page shows when an offered code does not work. */
  readonly codeRefused?: string;
}

/** A frame the hub handles (everything after hello but the heartbeat and pairing offers). */
export type HubFrame = Exclude<BrowserFrame, { t: 'hello' | 'ping' | 'pong' | 'pair.offer' }>;

/** Where a connection's frames (after hello) and its end go. */
export interface ConnectionSink {
  frame(conn: RelayConnection, frame: HubFrame): void;
  closed(conn: RelayConnection): void;
}

/** Options of a {@link RelayConnection}. */
export interface ConnectionOptions {
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
export class RelayConnection {
  /** A process-unique id for logs. */
  readonly id = `c${nextConnectionId++}`;
  /** Set once hello succeeded. */
  host: HostIdentity | null = null;
  private state: 'hello' | 'authenticated' | 'attached' | 'closed' = 'hello';
  private readonly timing: RelayTiming;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly silence: NodeJS.Timeout;
  private pingCount = 0;

  constructor(
    private readonly socket: RelaySocket,
    readonly peer: RelayPeer,
    private readonly options: ConnectionOptions,
  ) {
    this.timing = { ...DEFAULT_RELAY_TIMING, ...options.timing };
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

  /** Sends one frame; a no-op once closed. */
  send(frame: ServerFrame): void {
    if (this.state !== 'closed') this.socket.send(encodeServerFrame(frame));
  }

  /** The first session opened: the attach deadline no longer applies. */
  markAttached(): void {
    if (this.state === 'authenticated') this.state = 'attached';
  }

  /** Closes the socket with a relay close code and a reason the page may show. */
  close(code: number, reason: string): void {
    if (this.state === 'closed') return;
    this.socket.close(code, reason);
    this.ended(code);
  }

  private receive(text: string): void {
    if (this.state === 'closed') return;
    this.silence.refresh();
    const parsed = parseBrowserFrame(text, this.options.maxFrameBytes ?? MAX_FRAME_BYTES);
    if (!parsed.ok) {
      const code = parsed.reason === 'too-large' ? CLOSE_CODES.tooLarge : CLOSE_CODES.malformed;
      this.fail(code, parsed.reason === 'too-large' ? 'frame too large' : 'malformed frame', parsed.reason);
      return;
    }
    const frame = parsed.frame;
    if (frame.t === 'ping') return this.send({ t: 'pong', n: frame.n });
    if (frame.t === 'pong') return;
    if (this.state === 'hello')
      return frame.t === 'hello' ? this.hello(frame) : this.fail(CLOSE_CODES.malformed, 'expected hello', 'not-hello');
    if (frame.t === 'hello') return this.fail(CLOSE_CODES.malformed, 'unexpected hello', 'second-hello');
    if (frame.t === 'pair.offer') return this.pairOffer(frame);
    this.options.sink.frame(this, frame);
  }

  private hello(frame: Extract<BrowserFrame, { t: 'hello' }>): void {
    const hostKind = frame.agent.kind;
    if (hostKind === 'extension' && !EXTENSION_ORIGIN.test(this.peer.origin)) {
      return this.fail(CLOSE_CODES.forbidden, 'extension hello from a page origin', 'kind-origin');
    }
    const verdict = this.options.auth.authenticate(frame.auth, { origin: this.peer.origin, hostKind });
    if (!verdict.ok) return this.fail(CLOSE_CODES.unauthorized, verdict.reason, `auth-${frame.auth.kind}`);
    this.host = { hostId: verdict.hostId, hostKind, origin: this.peer.origin };
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
    const grant = this.options.auth.proposal?.(frame.code) ?? null;
    this.options.logger.info('pairing link opened in a paired tab', {
      conn: this.id,
      hostId: this.host?.hostId,
      proposed: grant ?? 'refused',
    });
    this.send({
      t: 'pair.proposal',
      ref: frame.ref,
      grant,
      ...(grant === null ? { message: this.options.auth.codeRefused ?? 'pairing code expired or used' } : {}),
    });
  }

  private attachExpired(): void {
    if (this.state === 'hello' || this.state === 'authenticated') {
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
    for (const t of this.timers) clearTimeout(t);
    this.options.sink.closed(this);
  }

  private timer(ms: number, run: () => void): NodeJS.Timeout {
    const t = setTimeout(run, ms);
    t.unref();
    return t;
  }
}

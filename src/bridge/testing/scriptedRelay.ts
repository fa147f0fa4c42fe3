/**
 * A tiny scripted relay for tests: the server side of the relay protocol
 * (SPEC §9), enough to pair, welcome, open sessions and answer heartbeats.
 * It checks every frame the bridge sends against `BrowserFrameSchema`. It
 * imports no socket library: tests hand it the `ws` server they started.
 */
import {
  BrowserFrameSchema,
  DEFAULT_LIMITS,
  relayLimitsOf,
  type BrowserFrame,
  type Credential,
  type Grant,
  type Operation,
  type RequestFrame,
  type ServerFrame,
} from '../../protocol/index.js';

/** The server end of one client socket, as `ws` gives it. */
export interface PeerSocket {
  send(data: string): void;
  close(code?: number): void;
  terminate(): void;
  on(event: 'message', listener: (data: unknown) => void): unknown;
  on(event: 'close', listener: (code: number) => void): unknown;
}

/** A server that hands over each client socket, as `ws`'s `WebSocketServer` does. */
export interface PeerServer {
  on(event: 'connection', listener: (socket: PeerSocket) => void): unknown;
}

/** One client connection the relay saw. */
export interface PeerRecord {
  readonly index: number;
  readonly socket: PeerSocket;
  readonly frames: BrowserFrame[];
  /** How many frames each message carried, in order (a batch carries several). */
  readonly messageSizes: number[];
  /** The close code the relay observed, once closed. */
  closedWith: number | null;
  welcomed: boolean;
}

/** A relay whose behaviour tests adjust through its fields. */
export class ScriptedRelay {
  readonly peers: PeerRecord[] = [];
  /** Frames that failed `BrowserFrameSchema` (a bridge defect). */
  invalidFrames = 0;
  readonly pairCodes = new Set<string>();
  credential: Credential | null = null;
  /** Grant a pairing welcome proposes. */
  grant: Grant | undefined;
  heartbeatMs = 20_000;
  /** What the welcome says of `--enable-trading` (left out when undefined). */
  tradingEnabled: boolean | undefined;
  /** Stop answering anything (to test the silence timeout). */
  muted = false;
  /** Session ids whose open is refused. */
  readonly refusedSessionIds = new Set<string>();
  /** Called for every valid frame after the default handling. */
  onFrame: ((peer: PeerRecord, frame: BrowserFrame) => void) | null = null;
  private nextSession = 0;

  /** Serves every connection of `server`. */
  serve(server: PeerServer): void {
    server.on('connection', (socket) => this.accept(socket));
  }

  /** The newest connection. */
  get latest(): PeerRecord | undefined {
    return this.peers[this.peers.length - 1];
  }

  /** All frames of one type, across connections. */
  framesOf<T extends BrowserFrame['t']>(t: T): Array<Extract<BrowserFrame, { t: T }>> {
    return this.peers.flatMap((p) => p.frames.filter((f): f is Extract<BrowserFrame, { t: T }> => f.t === t));
  }

  /** Sends a frame (or raw text) to one connection. */
  send(peer: PeerRecord, frame: ServerFrame | string): void {
    peer.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  private accept(socket: PeerSocket): void {
    const peer: PeerRecord = {
      index: this.peers.length,
      socket,
      frames: [],
      messageSizes: [],
      closedWith: null,
      welcomed: false,
    };
    this.peers.push(peer);
    socket.on('message', (data) => this.receive(peer, String(data)));
    socket.on('close', (code) => {
      peer.closedWith = code;
    });
  }

  /** One message: a frame, or (the socket negotiated batches) an array of frames. */
  private receive(peer: PeerRecord, text: string): void {
    const value: unknown = JSON.parse(text);
    const items: unknown[] = Array.isArray(value) ? value : [value];
    peer.messageSizes.push(items.length);
    for (const item of items) {
      const parsed = BrowserFrameSchema.safeParse(item);
      if (!parsed.success) {
        this.invalidFrames++;
        continue;
      }
      peer.frames.push(parsed.data);
      if (this.muted) continue;
      this.respond(peer, parsed.data);
      this.onFrame?.(peer, parsed.data);
    }
  }

  private respond(peer: PeerRecord, frame: BrowserFrame): void {
    if (frame.t === 'hello') return this.hello(peer, frame);
    if (frame.t === 'ping') return this.send(peer, { t: 'pong', n: frame.n });
    if (frame.t === 'pair.offer') {
      const live = this.pairCodes.delete(frame.code);
      return this.send(peer, {
        t: 'pair.proposal',
        ref: frame.ref,
        grant: live ? (this.grant ?? 'write') : null,
        ...(live ? {} : { message: 'pairing code expired or used' }),
      });
    }
    if (frame.t !== 'session.open') return;
    if (frame.sessionId !== undefined && this.refusedSessionIds.has(frame.sessionId)) {
      return this.send(peer, { t: 'session.refused', ref: frame.ref, message: 'That session id is taken.' });
    }
    const sessionId = frame.sessionId ?? `session-${++this.nextSession}`;
    this.send(peer, { t: 'session.opened', ref: frame.ref, sessionId });
  }

  private hello(peer: PeerRecord, frame: Extract<BrowserFrame, { t: 'hello' }>): void {
    const welcome = {
      t: 'welcome' as const,
      hostId: 'host-1',
      heartbeatMs: this.heartbeatMs,
      serverVersion: '0.0.0-test',
      ...(this.tradingEnabled === undefined ? {} : { tradingEnabled: this.tradingEnabled }),
    };
    if (frame.auth.kind === 'pair') {
      if (!this.pairCodes.delete(frame.auth.code)) return peer.socket.close(4401);
      this.credential = { hostId: 'host-1', secret: `secret-${Math.random().toString(36).slice(2)}-0123456789` };
      peer.welcomed = true;
      return this.send(peer, { ...welcome, credential: this.credential, grant: this.grant });
    }
    const known = this.credential;
    if (known === null || known.secret !== frame.auth.credential.secret) return peer.socket.close(4401);
    peer.welcomed = true;
    this.send(peer, welcome);
  }
}

/** A request frame with the default limits, for tests. */
export function requestFrame(
  id: string,
  sessionId: string,
  op: Operation,
  overrides: Partial<RequestFrame> = {},
): RequestFrame {
  return {
    t: 'request',
    id,
    sessionId,
    attachment: { attachmentId: 'att-1', namespace: 'ns-1', clientName: 'test client' },
    adapter: { maxAccess: 'write', allowControls: null },
    limits: relayLimitsOf(DEFAULT_LIMITS),
    deadlineMs: DEFAULT_LIMITS.callDeadlineMs,
    op,
    ...overrides,
  };
}

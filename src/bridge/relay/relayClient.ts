/**
 * The relay connection state machine (SPEC §9): hello with a credential or a
 * pairing code, welcome, sessions, requests, heartbeat and jittered reconnect.
 * It needs no Worker, window or DOM: a page's worker and the extension's
 * service worker both run it, and Node tests drive it against a real `ws` server.
 */
import {
  CLOSE_CODES,
  RELAY_TIMING,
  RELAY_VERSION,
  contextOf,
  makeError,
  relaySubprotocols,
  requestWithContext,
  type BrowserFrame,
  type ContextFrame,
  type Credential,
  type Grant,
  type RequestFrame,
  type RequestRefFrame,
  type ServerFrame,
} from '../../protocol/index.js';
import { DEFAULT_BACKOFF, backoffDelay, type BackoffPolicy } from './backoff.js';
import { systemClock, type Clock, type TimerHandle } from './clock.js';
import type { BrowserCredentialStore } from './browserCredentials.js';
import { encodeRefusal, encodeResponse, parseServerFrames } from './clientFrames.js';
import { Heartbeat } from './heartbeat.js';
import {
  CREDENTIAL_NOT_SAVED_MESSAGE,
  CREDENTIAL_REFUSED_MESSAGE,
  NOT_PAIRED_MESSAGE,
  originNotAllowedMessage,
  PAIR_CODE_REFUSED_MESSAGE,
  RECONNECTING_MESSAGE,
} from './statusMessages.js';
import { RelayLink, type HelloAuth } from './relayLink.js';
import { InflightRequests } from './requests.js';
import { ClientSessions, type RelaySession, type SessionOptions } from './clientSessions.js';
import type { BrowserSocketConstructor, SocketCloseEvent, SocketMessageEvent } from './browserSocket.js';
import type { BridgeState, PairLinkResult } from '../page/bridgeTypes.js';

/** Who is connecting, as `hello.agent` says. */
export interface AgentInfo {
  kind: 'page' | 'extension';
  version: string;
}

/** Where the connection stands (sessions report their own status). */
export interface RelayClientStatus {
  state: BridgeState;
  message: string | null;
  /** Whether the server was started with `--enable-trading`, once a welcome said so. */
  tradingEnabled?: boolean;
}

/** Options of a {@link RelayClient}. */
export interface RelayClientOptions {
  /** e.g. `ws://127.0.0.1:7391/relay`. */
  url: string;
  /** The browser's `WebSocket`, or `ws`'s in Node tests. */
  webSocket: BrowserSocketConstructor;
  credentials: BrowserCredentialStore;
  agent: AgentInfo;
  /** A single-use pairing code; used only when no credential is stored. */
  pairCode?: string | null;
  /**
   * A bearer token for a relay that requires one (a vendor's cluster, SPEC §14),
   * offered as the `bearer.<token>` subprotocol: the vendor's page gets it
   * from its own login.
   */
  relayToken?: string | null;
  clock?: Clock;
  /** Uniform in [0, 1): the backoff's jitter. */
  random?: () => number;
  backoff?: BackoffPolicy;
  /** Overrides of the ping interval (else the server's `welcome.heartbeatMs`) and the silence timeout. */
  heartbeat?: { intervalMs?: number; silenceMs?: number };
  onStatus?: (status: RelayClientStatus) => void;
  /** `welcome` carried the grant a pairing link proposed (this pairing used the link). */
  onGrantProposed?: (grant: Grant) => void;
  /**
   * A pairing link opened while already paired: the grant it proposes, for the
   * person to accept or decline (never applied here), or why it did not work.
   */
  onPairLink?: (result: PairLinkResult) => void;
  /** An MCP attachment ended (its subscriptions stop). */
  onAttachmentEnded?: (attachmentId: string) => void;
}

/** The origin the relay sees: a page's (its worker's) own, or the extension's. */
function pageOrigin(): string {
  return (globalThis as { location?: { origin?: string } }).location?.origin ?? 'this origin';
}

/** Codes with which the server refuses a credential or pairing code. */
const AUTH_REFUSED: ReadonlySet<number> = new Set([CLOSE_CODES.unauthorized, CLOSE_CODES.forbidden]);
/** Normal closure, when the page closes the connection. */
const CLOSE_NORMAL = 1000;

/** One relay connection carrying any number of sessions. */
export class RelayClient {
  private link: RelayLink | null = null;
  private current: RelayClientStatus = { state: 'disconnected', message: null };
  private attempt = 0;
  private reconnectTimer: TimerHandle | null = null;
  private connecting = false;
  private started = false;
  private stopped = false;
  private pairCode: string | null;
  private relayToken: string | null;
  private offers = 0;
  private tradingEnabled: boolean | undefined = undefined;
  /** A credential being written: the next connect waits for it. */
  private saving: Promise<void> = Promise.resolve();
  private readonly clock: Clock;
  private readonly sessions = new ClientSessions({ send: (frame) => this.sendFrame(frame) });
  private readonly requests = new InflightRequests();

  constructor(private readonly options: RelayClientOptions) {
    this.pairCode = options.pairCode ?? null;
    this.relayToken = options.relayToken ?? null;
    this.clock = options.clock ?? systemClock;
  }

  /** The current status. */
  status(): RelayClientStatus {
    return { ...this.current };
  }

  /** Requests in flight on the current socket. */
  get inFlight(): number {
    return this.requests.size;
  }

  /** Replaces the relay's bearer token (the vendor's login renewed it); used from the next connect on. */
  setRelayToken(token: string | null): void {
    this.relayToken = token;
  }

  /** Starts connecting; without a credential or pairing code, goes `unpaired` instead. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    void this.connect();
  }

  /**
   * Offers a pairing code (the person opened a pairing link). Used at once when
   * unpaired or waiting to reconnect; kept as a fallback while a credential works.
   */
  pair(code: string): void {
    this.pairCode = code;
    const link = this.link;
    if (link !== null && link.welcomedAt !== null) return this.offerCode(link);
    if (!this.started || this.stopped || this.link !== null || this.connecting) return;
    if (this.reconnectTimer !== null) this.clock.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.attempt = 0;
    void this.connect();
  }

  /** Adds a session; it opens once the socket is welcomed, and again after every reconnect. */
  openSession(options: SessionOptions): RelaySession {
    return this.sessions.add(options, this.link?.welcomedAt != null);
  }

  /** Closes every session (`session.close`) and the socket; nothing reconnects. */
  close(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.reconnectTimer !== null) this.clock.clearTimeout(this.reconnectTimer);
    this.sessions.closeAll();
    if (this.link) this.letGo(this.link, CLOSE_NORMAL);
    this.setStatus('disconnected', null);
  }

  private async connect(): Promise<void> {
    this.reconnectTimer = null;
    this.connecting = true;
    await this.saving;
    const credential = await this.loadCredential();
    this.connecting = false;
    if (this.stopped || this.link !== null) return;
    const auth: HelloAuth | null = credential
      ? { kind: 'credential', credential }
      : this.pairCode !== null
        ? { kind: 'pair', code: this.pairCode }
        : null;
    if (auth === null) return this.setStatus('unpaired', NOT_PAIRED_MESSAGE);
    this.setStatus(auth.kind === 'pair' ? 'pairing' : 'connecting', this.current.message);
    this.openSocket(auth);
  }

  private async loadCredential(): Promise<Credential | null> {
    try {
      return await this.options.credentials.load();
    } catch {
      return null;
    }
  }

  private openSocket(auth: HelloAuth): void {
    let link: RelayLink;
    try {
      const url = this.options.url;
      const socket = new this.options.webSocket(url, relaySubprotocols(this.relayToken));
      link = new RelayLink(socket, auth);
    } catch {
      // Only a malformed URL throws here; retrying cannot fix it.
      return this.setStatus('disconnected', `The relay address "${this.options.url}" is not a WebSocket URL.`);
    }
    const silenceMs = this.options.heartbeat?.silenceMs ?? RELAY_TIMING.heartbeatTimeoutMs;
    link.heartbeat = new Heartbeat(this.clock, silenceMs, {
      sendPing: (n) => link.sendFrame({ t: 'ping', n }),
      onSilent: () => this.lose(link, CLOSE_CODES.heartbeatTimeout),
    });
    this.link = link;
    const { socket } = link;
    socket.onopen = () => {
      link.opened();
      link.sendFrame({ t: 'hello', v: RELAY_VERSION, agent: this.options.agent, auth });
    };
    socket.onmessage = (event: SocketMessageEvent) => this.receive(link, event.data);
    socket.onclose = (event: SocketCloseEvent) => this.closed(link, event.code);
    socket.onerror = () => undefined; // a close event follows
  }

  private receive(link: RelayLink, data: unknown): void {
    if (link !== this.link) return;
    link.heartbeat?.activity();
    const parsed = parseServerFrames(data, link.batch);
    if (!parsed.ok) return this.lose(link, parsed.closeCode);
    for (const frame of parsed.frames) {
      // A frame of the batch may have lost the socket: the rest of it is not acted on.
      if (link !== this.link) return;
      this.dispatch(link, frame);
    }
  }

  private dispatch(link: RelayLink, frame: ServerFrame): void {
    // Welcome comes first and once; only the heartbeat may come either side of it.
    const outOfOrder = (link.welcomedAt === null) !== (frame.t === 'welcome');
    if (outOfOrder && frame.t !== 'ping' && frame.t !== 'pong') return this.lose(link, CLOSE_CODES.malformed);
    switch (frame.t) {
      case 'welcome':
        return this.welcomed(link, frame);
      case 'session.opened':
      case 'session.refused':
      case 'attachments':
        return this.sessions.apply(frame);
      case 'request':
        return this.request(link, frame);
      case 'context':
        return this.context(link, frame);
      case 'request.ref':
        return this.requestRef(link, frame);
      case 'cancel':
        return this.requests.cancel(frame.id);
      case 'attachment.ended':
        return this.options.onAttachmentEnded?.(frame.attachmentId);
      case 'pair.proposal':
        return this.options.onPairLink?.(
          frame.grant === null
            ? { grant: null, message: PAIR_CODE_REFUSED_MESSAGE }
            : { grant: frame.grant, message: null },
        );
      case 'ping':
        return void link.sendFrame({ t: 'pong', n: frame.n });
      case 'pong':
        return;
    }
  }

  private welcomed(link: RelayLink, frame: Extract<ServerFrame, { t: 'welcome' }>): void {
    link.welcomedAt = this.clock.now();
    if (link.auth.kind === 'pair') this.pairCode = null;
    this.tradingEnabled = frame.tradingEnabled;
    this.setStatus('paired', null);
    if (frame.credential) this.saveCredential(frame.credential);
    if (frame.grant) this.options.onGrantProposed?.(frame.grant);
    link.heartbeat?.startPinging(this.options.heartbeat?.intervalMs ?? frame.heartbeatMs);
    this.sessions.openAll();
    // A pairing link opened while the stored credential works: ask what it proposes, never drop it.
    if (link.auth.kind === 'credential' && this.pairCode !== null) this.offerCode(link);
  }

  /** Spends the pending code to learn its link's proposed grant (answered by `pair.proposal`). */
  private offerCode(link: RelayLink): void {
    const code = this.pairCode;
    if (code === null) return;
    this.pairCode = null;
    link.sendFrame({ t: 'pair.offer', ref: `offer-${++this.offers}`, code });
  }

  private saveCredential(credential: Credential): void {
    this.saving = this.options.credentials.save(credential).catch(() => {
      this.setStatus(this.current.state, CREDENTIAL_NOT_SAVED_MESSAGE);
    });
  }

  /** A call context (`callContexts.ts`): only on a socket that negotiated them, and only under a new key. */
  private context(link: RelayLink, frame: ContextFrame): void {
    if (!link.contexts?.hold(frame.key, contextOf(frame))) this.lose(link, CLOSE_CODES.malformed);
  }

  /** A request naming a call context: acted on as the full request, or refused when the key is not held. */
  private requestRef(link: RelayLink, frame: RequestRefFrame): void {
    if (!link.contexts) return this.lose(link, CLOSE_CODES.malformed);
    const context = link.contexts.get(frame.context);
    if (context) return this.request(link, requestWithContext(frame, context));
    const error = makeError(
      'internal_error',
      `No call context ${frame.context} on this relay socket (a server defect): reconnect the page.`,
    );
    link.send(encodeRefusal(frame.id, error));
  }

  private request(link: RelayLink, frame: RequestFrame): void {
    const session = this.sessions.find(frame.sessionId);
    if (session) return void this.requests.run(link, frame, session.options.handler);
    const error = makeError(
      'session_not_found',
      'This tab has no open session with that id; read tradescript://sessions again.',
    );
    link.send(encodeResponse(frame, null, { ok: false, error }));
  }

  private sendFrame(frame: BrowserFrame): boolean {
    const link = this.link;
    return link !== null && link.welcomedAt !== null && link.sendFrame(frame);
  }

  /** We give up on a socket (malformed frame, too large, silent) and reconnect. */
  private lose(link: RelayLink, closeCode: number): void {
    if (link !== this.link) return;
    this.letGo(link, closeCode);
    this.scheduleReconnect(link);
  }

  /** The socket closed under us. */
  private closed(link: RelayLink, code: number): void {
    if (link !== this.link) return;
    this.letGo(link);
    if (AUTH_REFUSED.has(code)) return void this.refused(link);
    if (code === CLOSE_CODES.originNotAllowed)
      return this.scheduleReconnect(link, originNotAllowedMessage(pageOrigin()));
    this.scheduleReconnect(link);
  }

  private letGo(link: RelayLink, closeCode?: number): void {
    this.link = null;
    link.release(closeCode);
    this.requests.abandon(link);
    this.sessions.disconnected();
  }

  /** 4401/4403: a refused code is spent; a refused or revoked credential is forgotten. No retry loop. */
  private async refused(link: RelayLink): Promise<void> {
    if (link.auth.kind === 'pair' && link.welcomedAt === null) {
      this.pairCode = null;
      return this.setStatus('unpaired', PAIR_CODE_REFUSED_MESSAGE);
    }
    // Past welcome, what was revoked is the credential, also one this socket was just given.
    await this.saving;
    await this.options.credentials.clear().catch(() => undefined);
    if (this.stopped) return;
    if (this.pairCode !== null) return this.connect();
    this.setStatus('unpaired', CREDENTIAL_REFUSED_MESSAGE);
  }

  private scheduleReconnect(link: RelayLink, message = RECONNECTING_MESSAGE): void {
    if (this.stopped) return;
    const policy = this.options.backoff ?? DEFAULT_BACKOFF;
    if (link.welcomedAt !== null && this.clock.now() - link.welcomedAt >= policy.stableMs) this.attempt = 0;
    const delay = backoffDelay(this.attempt++, this.options.random ?? Math.random, policy);
    this.setStatus('disconnected', message);
    this.reconnectTimer = this.clock.setTimeout(() => void this.connect(), delay);
  }

  private setStatus(state: BridgeState, message: string | null): void {
    const trading = this.tradingEnabled;
    if (this.current.state === state && this.current.message === message && this.current.tradingEnabled === trading)
      return;
    this.current = { state, message, ...(trading === undefined ? {} : { tradingEnabled: trading }) };
    this.options.onStatus?.(this.status());
  }
}

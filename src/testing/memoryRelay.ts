/**
 * Test support: the relay without a network. A `WebSocket` constructor for the
 * bridge runtime whose sockets are linked, in memory, to a real {@link Hub}'s
 * `connect` (the hub holds the server end as a {@link RelaySocket}). Delivery
 * is asynchronous and ordered, as on a real socket, so handlers never re-enter.
 * Tests drop sockets (network loss) and take the relay down (refused connects).
 */
import { RELAY_BATCH_SUBPROTOCOL, RELAY_CONTEXT_SUBPROTOCOL } from '../protocol/index.js';
import type { BrowserSocket as BridgeSocket, BrowserSocketConstructor } from '../bridge/relay/browserSocket.js';
import type { Hub } from '../server/hub/hub.js';
import type { RelaySocket as HubSocket } from '../server/relay/relaySocket.js';

const CONNECTING = 0;
const OPEN = 1;
const CLOSED = 3;

/** One linked socket pair, seen from the test. */
export interface MemoryLink {
  /** Frames the bridge sent, in order (text). */
  readonly sent: string[];
  /** Frames the hub sent, in order (text). */
  readonly received: string[];
  /** The close code, once closed. */
  readonly closedWith: number | null;
  /** Drops the connection without a close handshake (both ends see `code`, default 1006). */
  drop(code?: number): void;
  /** Sends raw text to the hub as if the bridge had (malformed frames, foreign answers). */
  inject(text: string): void;
}

/** The in-memory relay of one hub. */
export interface MemoryRelay {
  /** Hand this to the bridge runtime as its `webSocket`. */
  readonly webSocket: BrowserSocketConstructor;
  /** Every link opened so far, oldest first. */
  readonly links: MemoryLink[];
  /** While true, new sockets fail to connect (a relay that is down). */
  down: boolean;
  /** Drops every open link. */
  dropAll(code?: number): void;
}

/** Options of {@link createMemoryRelay}. */
export interface MemoryRelayOptions {
  /** The `Origin` the upgrade would have checked (default the demo's loopback origin). */
  origin?: string;
  /** Whether the upgrade negotiated batches (`frameBatch.ts`), as a current server does when offered (default false). */
  batch?: boolean;
  /** Whether it negotiated call contexts (`callContexts.ts`, with batches), as a current server does when offered (default false). */
  contexts?: boolean;
}

class LinkedSocket implements BridgeSocket, MemoryLink {
  readyState = CONNECTING;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readonly sent: string[] = [];
  readonly received: string[] = [];
  closedWith: number | null = null;
  readonly protocol: string;
  private readonly server: HubSocket;

  constructor(connect: ((socket: HubSocket) => void) | null, batch: boolean, contexts: boolean) {
    this.protocol = contexts ? RELAY_CONTEXT_SUBPROTOCOL : batch ? RELAY_BATCH_SUBPROTOCOL : '';
    this.server = {
      batch: batch || contexts,
      contexts,
      send: (text) => {
        if (this.readyState !== OPEN) return;
        this.received.push(text);
        queueMicrotask(() => {
          if (this.readyState === OPEN) this.onmessage?.({ data: text });
        });
      },
      close: (code) => this.finish(code),
      onmessage: null,
      onclose: null,
    };
    queueMicrotask(() => {
      if (this.readyState !== CONNECTING) return;
      if (connect === null) return this.finish(1006);
      this.readyState = OPEN;
      connect(this.server);
      this.onopen?.({});
    });
  }

  send(data: string): void {
    if (this.readyState !== OPEN) return;
    this.sent.push(data);
    this.inject(data);
  }

  inject(text: string): void {
    queueMicrotask(() => {
      if (this.readyState === OPEN) this.server.onmessage?.(text);
    });
  }

  close(code = 1000): void {
    this.finish(code);
  }

  drop(code = 1006): void {
    this.finish(code);
  }

  private finish(code: number): void {
    if (this.readyState === CLOSED) return;
    const wasOpen = this.readyState === OPEN;
    this.readyState = CLOSED;
    this.closedWith = code;
    queueMicrotask(() => {
      if (wasOpen) this.server.onclose?.(code);
      this.onclose?.({ code });
    });
  }
}

/** Creates an in-memory relay in front of `hub`. */
export function createMemoryRelay(hub: Hub, options: MemoryRelayOptions = {}): MemoryRelay {
  const origin = options.origin ?? 'http://127.0.0.1:7392';
  const links: LinkedSocket[] = [];
  const relay: MemoryRelay = {
    links,
    down: false,
    dropAll: (code) => {
      for (const link of links) link.drop(code);
    },
    webSocket: class {
      constructor(_url: string) {
        const connect = relay.down ? null : (server: HubSocket) => hub.connect(server, { origin });
        const socket = new LinkedSocket(connect, options.batch ?? false, options.contexts ?? false);
        links.push(socket);
        return socket;
      }
    } as unknown as BrowserSocketConstructor,
  };
  return relay;
}

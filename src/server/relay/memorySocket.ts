/**
 * An in-memory linked socket pair: the hub holds the server end, a test plays
 * the browser with the client end. Delivery is asynchronous (a microtask), as on
 * a real network, so a handler that answers inside `send` never re-enters.
 */
import type { BrowserFrame, ServerFrame } from '../../protocol/index.js';
import type { RelaySocket } from './relaySocket.js';

/** The browser end of a memory socket pair. */
export interface MemoryClient {
  /** Every frame the server sent, parsed, in order. */
  readonly received: ServerFrame[];
  /** How many frames each message the server sent carried, in order (a batch carries several). */
  readonly messageSizes: number[];
  /** The close code and reason, once closed. */
  readonly closed: { code: number; reason: string } | null;
  /** Sends a frame (any object, so tests can send malformed ones). */
  send(frame: BrowserFrame | Record<string, unknown>): void;
  /** Sends raw text. */
  sendText(text: string): void;
  /** Closes from the browser side (a lost tab or network). */
  drop(code?: number): void;
  /** Resolves with the next received frame of type `t` not yet taken by `next`. */
  next<T extends ServerFrame['t']>(t: T): Promise<Extract<ServerFrame, { t: T }>>;
  /** Resolves when the server closes the socket. */
  whenClosed(): Promise<{ code: number; reason: string }>;
}

/**
 * Creates a linked pair: `server` for the hub, `client` for the test. With
 * `batch` the pair negotiated batches (`frameBatch.ts`); with `contexts`,
 * batches and call contexts (`callContexts.ts`), as a current browser and
 * server do.
 */
export function createMemorySocketPair(options: { batch?: boolean; contexts?: boolean } = {}): {
  server: RelaySocket;
  client: MemoryClient;
} {
  const received: ServerFrame[] = [];
  const messageSizes: number[] = [];
  const taken = new Set<ServerFrame>();
  let closed: { code: number; reason: string } | null = null;
  const frameWaiters: Array<() => void> = [];
  const closeWaiters: Array<(c: { code: number; reason: string }) => void> = [];

  const finish = (code: number, reason: string) => {
    if (closed) return;
    closed = { code, reason };
    queueMicrotask(() => {
      server.onclose?.(code);
      for (const w of closeWaiters.splice(0)) w({ code, reason });
      for (const w of frameWaiters.splice(0)) w();
    });
  };

  const server: RelaySocket = {
    batch: (options.batch ?? false) || (options.contexts ?? false),
    contexts: options.contexts ?? false,
    send(text) {
      if (closed) return;
      const value = JSON.parse(text) as ServerFrame | ServerFrame[];
      const frames = Array.isArray(value) ? value : [value];
      messageSizes.push(frames.length);
      received.push(...frames);
      for (const w of frameWaiters.splice(0)) w();
    },
    close: (code, reason) => finish(code, reason),
    onmessage: null,
    onclose: null,
  };

  const client: MemoryClient = {
    received,
    messageSizes,
    get closed() {
      return closed;
    },
    send(frame) {
      client.sendText(JSON.stringify(frame));
    },
    sendText(text) {
      if (closed) return;
      queueMicrotask(() => {
        if (!closed) server.onmessage?.(text);
      });
    },
    drop: (code = 1006) => finish(code, ''),
    next(t) {
      return new Promise((resolve, reject) => {
        const look = () => {
          const hit = received.find((f) => f.t === t && !taken.has(f));
          if (hit) {
            taken.add(hit);
            resolve(hit as Extract<ServerFrame, { t: typeof t }>);
          } else if (closed) {
            reject(new Error(`socket closed (${closed.code}) before a ${t} frame`));
          } else {
            frameWaiters.push(look);
          }
        };
        look();
      });
    },
    whenClosed() {
      return closed ? Promise.resolve(closed) : new Promise((resolve) => closeWaiters.push(resolve));
    },
  };
  return { server, client };
}

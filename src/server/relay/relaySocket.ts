/**
 * The seam between the hub and one browser connection (STYLE §4): a text
 * transport with `send`, `close`, `onmessage` and `onclose`. The WebSocket
 * server adapts `ws` sockets to it; tests use {@link createMemorySocketPair}.
 */

/** One browser connection, as text frames. */
export interface RelaySocket {
  /** The peer negotiated batches (`frameBatch.ts`): one message may carry several frames, both ways. */
  readonly batch?: boolean;
  /**
   * The peer negotiated call contexts (`callContexts.ts`, always with batches):
   * a request goes as a `request.ref` naming a context sent once before it.
   */
  readonly contexts?: boolean;
  /** Sends one text message (a frame, or on a batch socket a batch); a no-op once closed. */
  send(text: string): void;
  /** Closes with a WebSocket close code and a short reason (at most 123 bytes). */
  close(code: number, reason: string): void;
  /** Set by the receiver: one text message arrived. */
  onmessage: ((text: string) => void) | null;
  /** Set by the receiver: the socket closed, either side. */
  onclose: ((code: number) => void) | null;
}

/** What the upgrade learned about the peer before any frame. */
export interface RelayPeer {
  /** The `Origin` header of the upgrade, already checked against the allowlist. */
  origin: string;
  /** Cluster mode (SPEC §14): the tenant the upgrade's bearer token names. */
  principal?: string;
}

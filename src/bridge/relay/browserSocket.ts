/**
 * The smallest WebSocket surface the relay connection needs, so the browser's
 * `WebSocket` and the `ws` package (Node tests) both fit without adapters.
 */

/** `readyState` of an open socket (the same value in the DOM and in `ws`). */
export const SOCKET_OPEN = 1;

/** What the connection reads from a socket event. */
export interface SocketMessageEvent {
  readonly data: unknown;
}

/** What the connection reads from a close event. */
export interface SocketCloseEvent {
  readonly code: number;
}

/**
 * A WebSocket as the connection uses it. The handler parameters are `any`
 * because the DOM and `ws` declare different event classes; the connection
 * reads them through {@link SocketMessageEvent} and {@link SocketCloseEvent}.
 */
export interface BrowserSocket {
  readonly readyState: number;
  /** The subprotocol the server selected, once open ('' for none). */
  readonly protocol?: string;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  /* eslint-disable @typescript-eslint/no-explicit-any -- see the interface comment */
  onopen: ((event: any) => void) | null;
  onmessage: ((event: any) => void) | null;
  onclose: ((event: any) => void) | null;
  onerror: ((event: any) => void) | null;
  /* eslint-enable @typescript-eslint/no-explicit-any */
}

/** A WebSocket constructor: the browser's `WebSocket`, or `ws`'s in Node tests. */
export type BrowserSocketConstructor = new (url: string, protocols?: string[]) => BrowserSocket;

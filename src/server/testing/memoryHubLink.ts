/**
 * An in-memory linked pair of text sockets for the hub link (STYLE §4): the
 * hub's link server holds one end, a {@link RemoteHub} the other. Delivery is
 * asynchronous (a microtask), as on a real socket; either end may drop.
 */
import type { RelaySocket } from '../relay/relaySocket.js';

/** Two linked ends, and a way to cut the wire as a crashed process would. */
export interface MemoryHubLink {
  readonly hubEnd: RelaySocket;
  readonly frontEnd: RelaySocket;
  /** Closes both ends at once with `code` (1006: the peer vanished). */
  cut(code?: number): void;
}

/** Creates a linked pair of text sockets. */
export function createMemoryHubLink(): MemoryHubLink {
  let closed = false;
  const finish = (code: number) => {
    if (closed) return;
    closed = true;
    queueMicrotask(() => {
      hubEnd.onclose?.(code);
      frontEnd.onclose?.(code);
    });
  };
  const end = (peer: () => RelaySocket): RelaySocket => ({
    send(text) {
      if (closed) return;
      queueMicrotask(() => {
        if (!closed) peer().onmessage?.(text);
      });
    },
    close: (code) => finish(code),
    onmessage: null,
    onclose: null,
  });
  const hubEnd: RelaySocket = end(() => frontEnd);
  const frontEnd: RelaySocket = end(() => hubEnd);
  return { hubEnd, frontEnd, cut: (code = 1006) => finish(code) };
}

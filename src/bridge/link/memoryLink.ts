/**
 * The host-call link inside one thread (issue 15 item 1): the page's relay
 * session asks the page's own host SDK through the same BridgeHostLink and
 * PageHostLink as across threads, with every parse and check they do, but a
 * message reaches the other end on a microtask, as itself. Posting across
 * threads (structured clone, the browser's IPC, a task at the other end) was
 * what a call cost most in the worker design: p50 1.54 → 1.26 ms, 8 callers
 * 1,780 → 2,077 calls/s (bench/hopsAB.mjs, helper P's measurements).
 */
import type { LinkEndpoint } from './linkEndpoint.js';

class MemoryEndpoint implements LinkEndpoint {
  onmessage: ((data: unknown) => void) | null = null;
  peer: MemoryEndpoint | null = null;

  post(message: unknown): void {
    const peer = this.peer;
    if (peer === null) return;
    // A later microtask, as a port delivers later: a caller never re-enters itself.
    queueMicrotask(() => peer.onmessage?.(message));
  }

  close(): void {
    if (this.peer !== null) this.peer.peer = null;
    this.peer = null;
  }
}

/** Two connected endpoints; each delivers what it is given to the other on a microtask, uncloned. */
export function memoryLink(): [LinkEndpoint, LinkEndpoint] {
  const a = new MemoryEndpoint();
  const b = new MemoryEndpoint();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

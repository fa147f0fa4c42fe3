/**
 * One socket of a relay connection: what was presented on it, whether it was
 * welcomed, and its heartbeat. A connection replaces its link on every
 * reconnect; anything tied to an old link (its requests) dies with it.
 */
import {
  atTurnEnd,
  CallContextWindow,
  carriesBatches,
  FrameQueue,
  RELAY_CONTEXT_SUBPROTOCOL,
  type BrowserFrame,
} from '../../protocol/index.js';
import type { Heartbeat } from './heartbeat.js';
import type { RequestLink } from './requests.js';
import { SOCKET_OPEN, type BrowserSocket } from './browserSocket.js';

/** What a hello presented: a credential, or a pairing code, never both. */
export type HelloAuth = Extract<BrowserFrame, { t: 'hello' }>['auth'];

/** One socket of a relay connection. */
export class RelayLink implements RequestLink {
  /** False once the connection let go of this socket. */
  live = true;
  /** When `welcome` arrived, or null before. */
  welcomedAt: number | null = null;
  /** Set right after construction, once the heartbeat can reference the link. */
  heartbeat: Heartbeat | null = null;
  /**
   * Once open on a server that negotiated batches, frames sent in one turn
   * wait for its end and share a message (`frameBatch.ts`).
   */
  private out: FrameQueue | null = null;
  /** Once open on a server that negotiated call contexts, the contexts it sent (`callContexts.ts`). */
  contexts: CallContextWindow | null = null;

  constructor(
    readonly socket: BrowserSocket,
    readonly auth: HelloAuth,
  ) {}

  /** Whether the server chose batches (known once open). */
  get batch(): boolean {
    return this.out !== null;
  }

  /** The socket opened: whether the server chose batches (and call contexts) decides how frames go from now on. */
  opened(): void {
    if (this.socket.protocol === RELAY_CONTEXT_SUBPROTOCOL) this.contexts = new CallContextWindow();
    if (!carriesBatches(this.socket.protocol)) return;
    this.out = new FrameQueue((message) => this.write(message), atTurnEnd);
  }

  /** Sends text if the socket is open and still ours. */
  send(text: string): void {
    if (!this.live || this.socket.readyState !== SOCKET_OPEN) return;
    if (this.out) this.out.push(text);
    else this.socket.send(text);
  }

  /** Sends a frame; false when it could not be sent. */
  sendFrame(frame: BrowserFrame): boolean {
    if (!this.live || this.socket.readyState !== SOCKET_OPEN) return false;
    this.send(JSON.stringify(frame));
    return true;
  }

  private write(message: string): void {
    if (this.live && this.socket.readyState === SOCKET_OPEN) this.socket.send(message);
  }

  /** Lets go of the socket: no more events reach the connection; closes it if a code is given. */
  release(closeCode?: number): void {
    // Our own close: what was sent before it goes out first.
    if (closeCode !== undefined) this.out?.flush();
    this.out?.clear();
    this.live = false;
    this.heartbeat?.stop();
    this.socket.onopen = null;
    this.socket.onmessage = null;
    this.socket.onclose = null;
    // An error listener stays: `ws` throws on an error event nobody listens to.
    this.socket.onerror = () => undefined;
    if (closeCode === undefined) return;
    try {
      this.socket.close(closeCode);
    } catch {
      // Already closing; nothing more to do.
    }
  }
}

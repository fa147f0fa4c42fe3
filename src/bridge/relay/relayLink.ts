/**
 * One socket of a relay connection: what was presented on it, whether it was
 * welcomed, and its heartbeat. A connection replaces its link on every
 * reconnect; anything tied to an old link (its requests) dies with it.
 */
import type { BrowserFrame } from '../../protocol/index.js';
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

  constructor(
    readonly socket: BrowserSocket,
    readonly auth: HelloAuth,
  ) {}

  /** Sends text if the socket is open and still ours. */
  send(text: string): void {
    if (this.live && this.socket.readyState === SOCKET_OPEN) this.socket.send(text);
  }

  /** Sends a frame; false when it could not be sent. */
  sendFrame(frame: BrowserFrame): boolean {
    if (!this.live || this.socket.readyState !== SOCKET_OPEN) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }

  /** Lets go of the socket: no more events reach the connection; closes it if a code is given. */
  release(closeCode?: number): void {
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

/**
 * The hub's side of the hub link (SPEC §9): every MCP front of another
 * process sharing this relay is one {@link LinkPeer}. The upgrade that hands
 * sockets here has already checked the loopback peer, `Host`, the absent
 * `Origin` and the link token.
 */
import { CLOSE_CODES } from '../../protocol/index.js';
import type { RelaySocket } from '../relay/relaySocket.js';
import { LinkPeer, type LinkPeerContext } from './linkPeer.js';

/** Options of a {@link HubLinkServer}; `helloTimeoutMs` defaults to 5 s. */
export type HubLinkServerOptions = Omit<LinkPeerContext, 'helloTimeoutMs'> & { helloTimeoutMs?: number };

/** The fronts linked to one hub. */
export class HubLinkServer {
  private readonly peers = new Set<LinkPeer>();
  private readonly ctx: LinkPeerContext;
  private closing = false;

  constructor(options: HubLinkServerOptions) {
    this.ctx = { ...options, helloTimeoutMs: options.helloTimeoutMs ?? 5_000 };
  }

  /** Takes one front's socket. */
  accept(socket: RelaySocket): void {
    const peer = new LinkPeer(socket, this.ctx, (ended) => this.peers.delete(ended));
    if (this.closing) peer.close(CLOSE_CODES.serverShutdown, 'hub shutting down');
    else this.peers.add(peer);
  }

  /** Linked fronts. */
  get size(): number {
    return this.peers.size;
  }

  /** Closes every link (4500): the fronts follow to the next hub. */
  close(): void {
    this.closing = true;
    for (const peer of [...this.peers]) peer.close(CLOSE_CODES.serverShutdown, 'hub shutting down');
  }
}

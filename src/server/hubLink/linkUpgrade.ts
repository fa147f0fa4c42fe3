/**
 * The hub link's WebSocket endpoint on the hub's port (SPEC §9): only a
 * process on this machine holding the link token from `hub.json` (mode 0600)
 * gets in. The peer must be loopback, `Host` a loopback name with the bound
 * port, no `Origin` (no page can open it), and the token is compared in
 * constant time. A refusal is a plain HTTP 403.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { HUB_LINK_SUBPROTOCOL } from '../../protocol/wire/hubLink.js';
import { bearerOf, isLoopbackHost, secretEquals, type BoundAddress } from '../http/requestGuard.js';
import type { Logger } from '../log.js';
import type { RelaySocket } from '../relay/relaySocket.js';
import { lazyUpgradeServer } from '../relay/lazyUpgrade.js';
import { adaptWebSocket } from '../relay/upgrade.js';
import { MAX_LINK_FRAME_BYTES } from './linkFrames.js';
import { keepAlive } from './linkWebSocket.js';

/** Options of {@link createLinkUpgrade}. */
export interface LinkUpgradeOptions {
  /** The link token written to `hub.json`. */
  token: string;
  /** The hub's bound address, read per upgrade. */
  bound: () => BoundAddress;
  logger: Logger;
  /** Takes an accepted front's socket. */
  accept: (socket: RelaySocket) => void;
}

/** The hub link endpoint: an `upgrade` listener for its path, and its shutdown. */
export interface LinkUpgrade {
  handle(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

function hostIsLoopback(header: string | undefined, port: number): boolean {
  if (!header) return false;
  try {
    const url = new URL(`http://${header}`);
    return isLoopbackHost(url.hostname) && Number(url.port || 80) === port && url.host === header.toLowerCase();
  } catch {
    return false;
  }
}

function offersLink(req: IncomingMessage): boolean {
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  return offered.includes(HUB_LINK_SUBPROTOCOL);
}

/** Why an upgrade was refused, or null when it may proceed. */
function refusal(req: IncomingMessage, options: LinkUpgradeOptions): string | null {
  if (!isLoopbackHost(req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '')) return 'peer';
  if (!hostIsLoopback(req.headers.host, options.bound().port)) return 'host';
  if (req.headers.origin !== undefined) return 'origin';
  if (!offersLink(req)) return 'protocol';
  const presented = bearerOf(req.headers.authorization);
  if (presented === null || !secretEquals(presented, options.token)) return 'token';
  return null;
}

/** Creates the hub link's upgrade handler. */
export function createLinkUpgrade(options: LinkUpgradeOptions): LinkUpgrade {
  const server = lazyUpgradeServer({ maxPayload: MAX_LINK_FRAME_BYTES, subprotocols: [HUB_LINK_SUBPROTOCOL] });
  return {
    handle(req, socket, head) {
      const why = refusal(req, options);
      if (why !== null) {
        options.logger.warn('front link refused', { reason: why });
        socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      server.upgrade(req, socket, head, (ws) => {
        keepAlive(ws);
        options.accept(adaptWebSocket(ws));
      });
    },
    close: () => server.close(),
  };
}

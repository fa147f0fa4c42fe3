/**
 * The hub link over a real loopback WebSocket (SPEC §9): the front's
 * connecting side, and a keepalive both sides run so a hung peer is noticed
 * (a peer that exits closes its socket at once). `ws` loads on first use.
 */
import type { WebSocket } from 'ws';
import { HUB_LINK_SUBPROTOCOL } from '../../protocol/wire/hubLink.js';
import { adaptWebSocket } from '../relay/upgrade.js';
import type { RelaySocket } from '../relay/relaySocket.js';
import { MAX_LINK_FRAME_BYTES } from './linkFrames.js';

/** How often each side pings; a peer silent for two intervals is dropped. */
export const LINK_KEEPALIVE_MS = 15_000;

/** Pings `ws` every `intervalMs`; terminates it when a ping went unanswered. */
export function keepAlive(ws: WebSocket, intervalMs: number = LINK_KEEPALIVE_MS): void {
  let answered = true;
  ws.on('pong', () => (answered = true));
  const timer = setInterval(() => {
    if (!answered) return ws.terminate();
    answered = false;
    ws.ping();
  }, intervalMs);
  timer.unref();
  ws.once('close', () => clearInterval(timer));
}

/**
 * Opens the hub link to `url` with the hub's link token; resolves with the
 * socket once the upgrade succeeded, or null when it was refused, failed or
 * took longer than `timeoutMs`.
 */
export async function openLinkSocket(url: string, token: string, timeoutMs: number): Promise<RelaySocket | null> {
  const { WebSocket: Client } = await import('ws');
  let ws: WebSocket;
  try {
    ws = new Client(url, [HUB_LINK_SUBPROTOCOL], {
      headers: { authorization: `Bearer ${token}` },
      handshakeTimeout: timeoutMs,
      perMessageDeflate: false,
      maxPayload: MAX_LINK_FRAME_BYTES,
    });
  } catch {
    return null;
  }
  // Every failure also arrives as 'close' or as the resolution below; an unheard 'error' would throw.
  ws.on('error', () => undefined);
  const opened = await new Promise<boolean>((resolve) => {
    ws.once('open', () => resolve(true));
    ws.once('error', () => resolve(false));
    ws.once('unexpected-response', () => resolve(false));
  });
  if (!opened) {
    ws.terminate();
    return null;
  }
  keepAlive(ws);
  return adaptWebSocket(ws);
}

/**
 * The relay's WebSocket endpoint (SPEC §9): `ws` in noServer mode on the HTTP
 * server's `upgrade` for `/relay`. `Origin`, `Host` and (with --token-file) the
 * bearer token are checked before the upgrade; a refusal is a plain HTTP 403,
 * except a well-formed origin that is not on the allowlist: browsers hide a
 * refused upgrade's status from the page, so that socket is accepted and at
 * once closed with `originNotAllowed` and the flag that admits the origin. It
 * never reaches the hub: it gets no frame but the close, and nothing it sends is read.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import {
  CLOSE_CODES,
  RELAY_BATCH_SUBPROTOCOL,
  RELAY_BEARER_PREFIX,
  RELAY_CONTEXT_SUBPROTOCOL,
  RELAY_SUBPROTOCOL,
  carriesBatches,
} from '../../protocol/index.js';
import { bearerAllowed, bearerOf, hostMatches, type BoundAddress } from '../http/requestGuard.js';
import type { Logger } from '../log.js';
import { MAX_FRAME_BYTES } from './serverFrames.js';
import { lazyUpgradeServer } from './lazyUpgrade.js';
import { normalizeOrigin, type OriginPolicy } from './originPolicy.js';
import type { RelayPeer, RelaySocket } from './relaySocket.js';

/** The subprotocol a browser offers; a token may ride along as `bearer.<token>` (browsers cannot set headers). */
export { RELAY_SUBPROTOCOL };
const BEARER_PROTOCOL = RELAY_BEARER_PREFIX;

/** Takes a browser socket once its upgrade passed (the hub, or a cluster node's tenants). */
export interface RelayAcceptor {
  connect(socket: RelaySocket, peer: RelayPeer): unknown;
}

/** Options of {@link createRelayUpgrade}. */
export interface RelayUpgradeOptions {
  hub: RelayAcceptor;
  logger: Logger;
  originAllowed: OriginPolicy;
  /** The bound MCP/relay address, read per upgrade. */
  bound: () => BoundAddress;
  bearerToken: string | null;
  /**
   * Cluster mode (SPEC §14): the principal a bearer token names, or null. When
   * set, every upgrade must carry a token it knows (else 401) and
   * `bearerToken` is not used.
   */
  principalOf?: (token: string) => string | null;
  /** Replaces the `Host` check against `bound` (a cluster node also answers to its public name). */
  hostAllowed?: (host: string | undefined) => boolean;
  maxPayload?: number;
}

/** The relay endpoint: an `upgrade` listener and its shutdown. */
export interface RelayUpgrade {
  handle(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Loads `ws` ahead of the first upgrade (startup does not wait for it). */
  warm(): Promise<void>;
  close(): void;
}

const STATUS_TEXT = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' } as const;

function refuse(socket: Duplex, status: keyof typeof STATUS_TEXT, text: string): void {
  const body = `${text}\n`;
  const challenge = status === 401 ? 'WWW-Authenticate: Bearer\r\n' : '';
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nConnection: close\r\n${challenge}` +
      `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

function offeredBearer(req: IncomingMessage): string | null {
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const bearer = offered.find((p) => p.startsWith(BEARER_PROTOCOL));
  return bearer ? bearer.slice(BEARER_PROTOCOL.length) : null;
}

function text(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  // `ws` hands a Buffer (its default binaryType): decoded where it lies, not copied first.
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** A close reason within the WebSocket limit of 123 bytes (`ws` throws beyond it). */
export function closeReason(reason: string): string {
  let cut = reason;
  while (Buffer.byteLength(cut) > 123) cut = cut.slice(0, -1);
  return cut;
}

/** The close reason a refused origin gets (the page composes its own message from the close code). */
export function originRefusal(origin: string): string {
  return `this origin is not allowed: start the server with --allowed-origin ${origin}`;
}

/** Adapts a `ws` socket to the hub's {@link RelaySocket}. */
export function adaptWebSocket(ws: WebSocket): RelaySocket {
  const socket: RelaySocket = {
    batch: carriesBatches(ws.protocol),
    contexts: ws.protocol === RELAY_CONTEXT_SUBPROTOCOL,
    send: (t) => {
      if (ws.readyState === ws.OPEN) ws.send(t);
    },
    close: (code, reason) => ws.close(code, closeReason(reason)),
    onmessage: null,
    onclose: null,
  };
  ws.on('message', (data, isBinary) => {
    if (isBinary) ws.close(CLOSE_CODES.malformed, 'binary frame');
    else socket.onmessage?.(text(data));
  });
  ws.on('close', (code) => socket.onclose?.(code));
  // An error is always followed by 'close'; the hub learns of it there.
  ws.on('error', () => undefined);
  return socket;
}

/** How long a refused origin's socket may take to finish the closing handshake. */
const REFUSED_CLOSE_MS = 2_000;

type UpgradeVerdict =
  | { ok: true; peer: RelayPeer }
  | { ok: false; reason: 'host' | 'origin' | 'token' | 'principal'; origin: string | null };

/** Host, Origin and token checks of one upgrade; the peer (origin, principal) when they pass. */
function checkUpgrade(req: IncomingMessage, options: RelayUpgradeOptions): UpgradeVerdict {
  const hostOk = options.hostAllowed
    ? options.hostAllowed(req.headers.host)
    : hostMatches(req.headers.host, options.bound());
  if (!hostOk) return { ok: false, reason: 'host', origin: null };
  const origin = req.headers.origin === undefined ? null : normalizeOrigin(req.headers.origin);
  if (origin === null || !options.originAllowed(origin)) return { ok: false, reason: 'origin', origin };
  if (options.principalOf) {
    const token = bearerOf(req.headers.authorization) ?? offeredBearer(req);
    const principal = token === null ? null : options.principalOf(token);
    return principal === null ? { ok: false, reason: 'principal', origin } : { ok: true, peer: { origin, principal } };
  }
  if (!bearerAllowed(req, options.bearerToken, offeredBearer(req))) return { ok: false, reason: 'token', origin };
  return { ok: true, peer: { origin } };
}

/** Creates the `/relay` upgrade handler. */
export function createRelayUpgrade(options: RelayUpgradeOptions): RelayUpgrade {
  const logger = options.logger;
  const server = lazyUpgradeServer({
    maxPayload: options.maxPayload ?? MAX_FRAME_BYTES,
    subprotocols: [RELAY_CONTEXT_SUBPROTOCOL, RELAY_BATCH_SUBPROTOCOL, RELAY_SUBPROTOCOL],
  });
  const accept = (req: IncomingMessage, socket: Duplex, head: Buffer, peer: RelayPeer) =>
    server.upgrade(
      req,
      socket,
      head,
      (ws) => options.hub.connect(adaptWebSocket(ws), peer),
      () => logger.error('cannot load the WebSocket server'),
    );
  const refuseOrigin = (req: IncomingMessage, socket: Duplex, head: Buffer, origin: string) =>
    server.upgrade(req, socket, head, (ws) => {
      ws.on('error', () => undefined);
      const hangUp = setTimeout(() => ws.terminate(), REFUSED_CLOSE_MS);
      hangUp.unref();
      ws.once('close', () => clearTimeout(hangUp));
      ws.close(CLOSE_CODES.originNotAllowed, closeReason(originRefusal(origin)));
    });
  return {
    warm: () => server.warm(),
    handle(req, socket, head) {
      const path = (req.url ?? '').split('?')[0];
      if (path !== '/relay') return refuse(socket, 404, 'not found');
      const verdict = checkUpgrade(req, options);
      if (!verdict.ok) {
        // Origins are not secrets (SPEC §9); only a well-formed one is echoed, never raw header text.
        logger.warn('relay upgrade refused', {
          reason: verdict.reason,
          origin: verdict.origin ?? undefined,
          ...(verdict.reason === 'origin' && verdict.origin !== null
            ? { admit: `--allowed-origin ${verdict.origin}` }
            : {}),
        });
        if (verdict.reason === 'principal') return refuse(socket, 401, 'a valid bearer token is required');
        if (verdict.reason === 'origin' && verdict.origin !== null) {
          return refuseOrigin(req, socket, head, verdict.origin);
        }
        return refuse(socket, 403, 'forbidden');
      }
      accept(req, socket, head, verdict.peer);
    },
    close: () => server.close(),
  };
}

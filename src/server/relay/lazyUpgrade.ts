/**
 * The WebSocket server behind an HTTP upgrade path (the `/relay` and the
 * hub link's): `ws` loads on the first upgrade or `warm()`, not on the way
 * to the ready line; the first of its subprotocols the client offers is
 * selected (the relay prefers its batching one); no compression. After
 * `close()` an upgrade still loading is destroyed.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';

/** A lazily loaded `noServer` WebSocket server. */
export interface LazyUpgradeServer {
  /** Loads `ws` now. */
  warm(): Promise<void>;
  /** Completes an upgrade already checked by the caller; `onLoadFailed` runs before the socket is destroyed. */
  upgrade(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    onOpen: (ws: WebSocket) => void,
    onLoadFailed?: () => void,
  ): void;
  /** Terminates every client and stops accepting. */
  close(): void;
}

/** Creates the server for frames of at most `maxPayload` bytes speaking one of `subprotocols` (most preferred first). */
export function lazyUpgradeServer(options: { maxPayload: number; subprotocols: readonly string[] }): LazyUpgradeServer {
  let wss: WebSocketServer | null = null;
  let closed = false;
  let loading: Promise<WebSocketServer> | null = null;
  const load = () =>
    (loading ??= import('ws').then(({ WebSocketServer }) => {
      wss = new WebSocketServer({
        noServer: true,
        maxPayload: options.maxPayload,
        perMessageDeflate: false,
        handleProtocols: (protocols) => options.subprotocols.find((p) => protocols.has(p)) ?? false,
      });
      return wss;
    }));
  return {
    warm: async () => {
      await load();
    },
    upgrade(req, socket, head, onOpen, onLoadFailed) {
      load().then(
        (server) => {
          if (closed) return void socket.destroy();
          server.handleUpgrade(req, socket, head, onOpen);
        },
        () => {
          onLoadFailed?.();
          socket.destroy();
        },
      );
    },
    close() {
      closed = true;
      const server: WebSocketServer | null = wss;
      if (!server) return;
      for (const client of server.clients) client.terminate();
      server.close();
    },
  };
}

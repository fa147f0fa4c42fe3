/**
 * A port that listens before its routes are loaded (SPEC §12: a starting
 * server binds its ports and writes its ready line without the hub, the relay
 * and the schemas behind them). A request or upgrade that arrives meanwhile
 * waits, in order, and asks for the routes to load; once they are served it
 * goes to them. When they cannot load, what waits is refused (503) and the
 * port answers 503 from then on: nothing hangs.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** The routes a held port gets once loaded. */
export interface PortRoutes {
  request(req: IncomingMessage, res: ServerResponse): void;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/** A port whose routes come later. */
export interface HeldServer {
  readonly http: HttpServer;
  /** From now on requests go to `routes`; what waited goes first, in arrival order. */
  serve(routes: PortRoutes): void;
  /** The routes will not come: what waited and what comes is refused with 503. */
  fail(): void;
}

const UNAVAILABLE_BODY = JSON.stringify({ error: 'server failed to start' });

/** An unlistened http server holding what arrives until {@link HeldServer.serve}; `onHeld` runs for the first held arrival. */
export function heldServer(onHeld: () => void): HeldServer {
  let routes: PortRoutes | null = null;
  let failed = false;
  const waiting: Array<(to: PortRoutes | null) => void> = [];
  const hold = (next: (to: PortRoutes | null) => void) => {
    waiting.push(next);
    if (waiting.length === 1) onHeld();
  };
  const http = createServer((req, res) => {
    if (routes) return routes.request(req, res);
    if (failed) return unavailable(res);
    hold((to) => (to ? to.request(req, res) : unavailable(res)));
  });
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (routes) return routes.upgrade(req, socket, head);
    if (failed) return refuseUpgrade(socket);
    hold((to) => {
      // A socket that closed while it waited has nobody left to answer.
      if (socket.destroyed) return;
      if (to) to.upgrade(req, socket, head);
      else refuseUpgrade(socket);
    });
  });
  const release = (to: PortRoutes | null) => waiting.splice(0).forEach((next) => next(to));
  return {
    http,
    serve(next) {
      routes = next;
      release(next);
    },
    fail() {
      failed = true;
      release(null);
    },
  };
}

function unavailable(res: ServerResponse): void {
  res.writeHead(503, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(UNAVAILABLE_BODY) });
  res.end(UNAVAILABLE_BODY);
}

function refuseUpgrade(socket: Duplex): void {
  socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
}

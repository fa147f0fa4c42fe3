/**
 * Listening and closing a node:http server, and the URLs of the MCP/relay
 * port: what a server needs to bind its ports before its ready line, with no
 * route behind them yet (SPEC §12; `portServer.ts` holds the routes).
 */
import type { Server as HttpServer } from 'node:http';
import { displayHost, urlHost, type BoundAddress } from './requestGuard.js';

/** Listens, rejecting with a clear message when the port is taken. */
export function listen(server: HttpServer, bind: BoundAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const where = `${urlHost(bind.host)}:${bind.port}`;
      if (error.code === 'EADDRINUSE') {
        const message = `Port ${where} is in use: is another tradescript-mcp running? Use --port to choose another.`;
        // The code stays readable: a front that loses the race for the relay port follows the winner.
        reject(Object.assign(new Error(message), { code: 'EADDRINUSE' }));
      } else if (error.code === 'EADDRNOTAVAIL') reject(new Error(`Cannot listen on ${where}: no such local address.`));
      else reject(error);
    };
    server.once('error', onError);
    server.listen(bind.port, bind.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Stops listening and ends open connections (long-lived SSE streams included). */
export function closeServer(server: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** The MCP/relay port's URLs for a bound address. */
export function portUrls(bound: BoundAddress): { origin: string; relayUrl: string; mcpUrl: string } {
  const origin = `http://${displayHost(bound.host)}:${bound.port}`;
  return { origin, relayUrl: `${origin.replace(/^http/, 'ws')}/relay`, mcpUrl: `${origin}/mcp` };
}

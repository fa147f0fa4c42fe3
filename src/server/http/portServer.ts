/**
 * The MCP/relay port (SPEC §9, §11): one node:http server with `/mcp`
 * (Streamable HTTP), the `/relay` WebSocket upgrade, the `/front` link for
 * other server processes and the CLI's `/admin/` API. A process that joined
 * another's hub serves only `/mcp` here. Every request must name the bound
 * address in `Host`. Nothing here serves HTML or script, so no page can share
 * this origin.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { HUB_LINK_PATH } from '../../protocol/wire/hubLink.js';
import type { Hub } from '../hub/hub.js';
import type { LinkUpgrade } from '../hubLink/linkUpgrade.js';
import type { Logger } from '../log.js';
import { createRelayUpgrade, type RelayUpgrade } from '../relay/upgrade.js';
import { originAllowlist } from '../relay/originPolicy.js';
import { handleAdmin, type AdminContext } from './adminApi.js';
import { sendJson } from './body.js';
import type { HeldServer } from './heldServer.js';
import { closeServer, listen, portUrls } from './listen.js';
import type { McpHttpEndpoint, McpServerFactory } from './mcpEndpoint.js';
import { bearerAllowed, hostMatches, isLoopbackHost, mcpOriginAllowed, type BoundAddress } from './requestGuard.js';

export { closeServer, listen } from './listen.js';

/** Options of {@link startPortServer}. */
export interface PortServerOptions {
  /** The hub the relay feeds; null in a process that joined another's hub (no relay, no admin). */
  hub: Hub | null;
  logger: Logger;
  /** --token-file contents: every /mcp and relay request must carry it. */
  bearerToken: string | null;
  /** Makes one MCP server per connection; null when MCP runs over stdio (no `/mcp`). */
  mcp: McpServerFactory | null;
  /** Origins allowed to open the relay, read per upgrade. */
  relayOrigins: () => Iterable<string>;
  /** The admin API's context, once the URLs are known; null without a hub. */
  admin: (() => AdminContext) | null;
  /** The `/front` link endpoint for other server processes, or null. */
  hubLink?: LinkUpgrade | null;
  /** Tests pass smaller relay frames. */
  relayMaxPayload?: number;
  /** A port already listening on `bind` that held what arrived until now (`heldServer.ts`): served, not bound again. */
  held?: HeldServer;
}

/** The running MCP/relay server. */
export interface PortServer {
  readonly bound: BoundAddress;
  /** `http://HOST:PORT` */
  readonly origin: string;
  readonly relayUrl: string;
  readonly mcpUrl: string;
  readonly http: HttpServer;
  readonly mcpEndpoint: McpHttpEndpoint | null;
  close(): Promise<void>;
}

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: message }, headers);
}

/** Listens on `bind` (port 0: ephemeral), or serves `options.held`, and resolves once listening. */
export async function startPortServer(bind: BoundAddress, options: PortServerOptions): Promise<PortServer> {
  const logger = options.logger.child('http');
  // `/mcp`'s code loads only where MCP runs over HTTP.
  const endpoint = options.mcp ? new (await import('./mcpEndpoint.js')).McpHttpEndpoint(options.mcp, logger) : null;
  const bound: BoundAddress = { host: bind.host, port: bind.port };
  const relay: RelayUpgrade | null = options.hub
    ? createRelayUpgrade({
        hub: options.hub,
        logger: options.logger.child('relay'),
        originAllowed: originAllowlist(options.relayOrigins),
        bound: () => bound,
        bearerToken: options.bearerToken,
        maxPayload: options.relayMaxPayload,
      })
    : null;
  const admin = options.admin;

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (!hostMatches(req.headers.host, bound)) return refuse(res, 403, 'forbidden host');
    if (path === '/mcp') {
      if (!endpoint) return refuse(res, 404, 'MCP runs over stdio in this process');
      if (!mcpOriginAllowed(req)) return refuse(res, 403, 'forbidden origin');
      if (!bearerAllowed(req, options.bearerToken))
        return refuse(res, 401, 'bearer token required', { 'WWW-Authenticate': 'Bearer' });
      return endpoint.handle(req, res);
    }
    if (path.startsWith('/admin/') && admin) {
      if (!isLoopbackHost(req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? ''))
        return refuse(res, 403, 'forbidden');
      return handleAdmin(admin(), req, res, path);
    }
    return refuse(res, 404, 'not found');
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    route(req, res).catch(() => {
      logger.error('request failed', { path: (req.url ?? '').split('?')[0] });
      if (!res.headersSent) refuse(res, 500, 'internal error');
      else res.end();
    });
  };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === HUB_LINK_PATH && options.hubLink) return options.hubLink.handle(req, socket, head);
    if (relay) return relay.handle(req, socket, head);
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  };
  const http = options.held?.http ?? createServer(onRequest);
  // MCP clients reuse connections between calls; with Node's 5 s default a client that pauses
  // (a loaded machine, a model thinking) can send its next POST as the server closes the socket.
  http.keepAliveTimeout = 65_000;
  if (!options.held) {
    http.on('upgrade', onUpgrade);
    await listen(http, bind);
  }
  bound.port = (http.address() as AddressInfo).port;
  // What the held port kept waiting is routed now, against the bound port.
  options.held?.serve({ request: onRequest, upgrade: onUpgrade });
  const { origin, relayUrl, mcpUrl } = portUrls(bound);
  return {
    bound,
    origin,
    relayUrl,
    mcpUrl,
    http,
    mcpEndpoint: endpoint,
    async close() {
      relay?.close();
      options.hubLink?.close();
      await endpoint?.close();
      await closeServer(http);
    },
  };
}

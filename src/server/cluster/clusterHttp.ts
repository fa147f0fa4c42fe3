/**
 * A cluster node's port (SPEC §9, §14): `/mcp` and `/relay` as on one machine
 * but every request carrying a bearer token that names its principal (401
 * without one); `/pair` and `/revoke` for a principal's own hosts; `/healthz`
 * (the process answers) and `/readyz` (Redis is reachable and this node is a
 * member) for the load balancer, which say nothing of any tenant. Nothing here
 * serves HTML or script, and nothing but the two probes answers a request
 * without a token.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { DEFAULT_GRANT, GrantSchema, IdSchema } from '../../protocol/index.js';
import { readBody, sendJson } from '../http/body.js';
import type { McpHttpEndpoint } from '../http/mcpEndpoint.js';
import { bearerOf, hostMatches, mcpOriginAllowed, type BoundAddress } from '../http/requestGuard.js';
import type { Logger } from '../log.js';
import type { ClusterPairing } from './clusterPairing.js';
import { runAsPrincipal } from './principalContext.js';
import type { PrincipalResolver } from './principals.js';

/** What `/readyz` and `/healthz` report. */
export interface NodeHealth {
  nodeId: string;
  version: string;
  uptimeS: number;
  redis: 'ready' | 'unavailable';
  ready: boolean;
  sockets: number;
  sessions: number;
  attachments: number;
  forwardsInFlight: number;
  servedForOthers: number;
}

/** What the routes work with. */
export interface ClusterRoutes {
  bound: () => BoundAddress;
  /** `Host` values a proxy in front of the node uses (its public name). */
  publicHosts: readonly string[];
  principals: PrincipalResolver;
  endpoint: McpHttpEndpoint;
  pairing: ClusterPairing;
  health: () => NodeHealth;
  /** Revokes a principal's host by host id or by one of its session ids; null when it has neither. */
  revoke: (principal: string, target: { hostId: string } | { sessionId: string }) => Promise<string | null>;
  logger: Logger;
}

const PairBodySchema = z.object({ grant: z.optional(GrantSchema) }).strict();
const RevokeBodySchema = z.union([z.object({ hostId: IdSchema }).strict(), z.object({ sessionId: IdSchema }).strict()]);

/** True when `Host` names the node's bound address or one of its public names. */
export function clusterHostAllowed(
  host: string | undefined,
  bound: BoundAddress,
  publicHosts: readonly string[],
): boolean {
  if (hostMatches(host, bound)) return true;
  return host !== undefined && publicHosts.includes(host.toLowerCase());
}

function unauthorized(res: ServerResponse): void {
  sendJson(
    res,
    401,
    { error: 'a valid bearer token is required' },
    { 'WWW-Authenticate': 'Bearer realm="tradescript"' },
  );
}

/** Handles one HTTP request of a cluster node. */
export async function routeCluster(routes: ClusterRoutes, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  // The probes answer whatever Host a load balancer uses: they say nothing of any tenant.
  if (req.method === 'GET' && (path === '/healthz' || path === '/readyz')) {
    const health = routes.health();
    const status = path === '/healthz' || health.ready ? 200 : 503;
    return sendJson(
      res,
      status,
      path === '/healthz' ? { status: 'ok', nodeId: health.nodeId, version: health.version } : health,
    );
  }
  if (!clusterHostAllowed(req.headers.host, routes.bound(), routes.publicHosts))
    return sendJson(res, 403, { error: 'forbidden host' });
  if (path !== '/mcp' && path !== '/pair' && path !== '/revoke') return sendJson(res, 404, { error: 'not found' });
  // Pages have no business here: /pair and /revoke take no Origin; /mcp only its own.
  if (path === '/mcp' ? !mcpOriginAllowed(req) : req.headers.origin !== undefined)
    return sendJson(res, 403, { error: 'forbidden origin' });
  const token = bearerOf(req.headers.authorization);
  const principal = token === null ? null : routes.principals.principalOf(token);
  if (principal === null) return unauthorized(res);
  if (path === '/mcp') return runAsPrincipal(principal, () => routes.endpoint.handle(req, res));
  if (req.method !== 'POST') return sendJson(res, 405, { error: 'POST only' }, { Allow: 'POST' });
  const body = await jsonBody(req);
  if (path === '/pair') {
    const parsed = PairBodySchema.safeParse(body);
    if (!parsed.success) return sendJson(res, 400, { error: 'unexpected body: {"grant"?: "read"|"write"|"trade"}' });
    const issued = await routes.pairing.issueCode(principal, parsed.data.grant ?? DEFAULT_GRANT);
    routes.logger.info('pairing code issued', { principal, grant: issued.grant });
    return sendJson(res, 200, {
      code: issued.code,
      grant: issued.grant,
      expiresAt: new Date(issued.expiresAt).toISOString(),
    });
  }
  const parsed = RevokeBodySchema.safeParse(body);
  if (!parsed.success) return sendJson(res, 400, { error: 'unexpected body: {"hostId": …} or {"sessionId": …}' });
  const hostId = await routes.revoke(principal, parsed.data);
  if (hostId === null) return sendJson(res, 404, { error: 'No paired host or open session of yours has this id.' });
  return sendJson(res, 200, { hostId, credentialRevoked: true });
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const text = await readBody(req, 16 * 1024);
  if (text === null || text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * The admin API the CLI talks to (`pair`, `status`, `sessions`), on the MCP
 * port under `/admin/`. Only callers holding the random admin token from
 * `hub.json` (mode 0600) get in; a browser (any `Origin`) never does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { GrantSchema, type Grant, type SessionSummary } from '../../protocol/index.js';
import type { Hub, HubStatus } from '../hub/hub.js';
import type { Logger } from '../log.js';
import type { PairedHost } from '../pairing/credentialFile.js';
import type { Pairing } from '../pairing/pairing.js';
import { readBody, sendJson } from './body.js';
import { pairUrlOf } from './pairUrl.js';
import { bearerAllowed } from './requestGuard.js';

const MAX_ADMIN_BODY = 16 * 1024;

/** The server's URLs, as the ready line and `status` show them. */
export interface ServerUrls {
  mcpUrl?: string;
  relayUrl: string;
  demoUrl?: string;
}

/** `POST /admin/pair` answer. */
export interface PairAnswer {
  code: string;
  grant: Grant;
  expiresAt: string;
  /** `${demoUrl}#pair=${code}` when the demo is served. */
  pairUrl: string | null;
  /** Whether this server was started with `--enable-trading` (a `trade` grant needs it). */
  tradingEnabled: boolean;
}

/** `GET /admin/status` answer. */
export interface StatusAnswer {
  version: string;
  pid: number;
  urls: ServerUrls;
  /** Whether this server was started with `--enable-trading`. */
  tradingEnabled: boolean;
  hub: HubStatus;
  hosts: PairedHost[];
  sessions: SessionSummary[];
}

/** What the admin API works on. */
export interface AdminContext {
  hub: Hub;
  pairing: Pairing;
  logger: Logger;
  token: string;
  version: string;
  defaultGrant: Grant;
  /** Started with `--enable-trading` (false when not given). */
  tradingEnabled?: boolean;
  urls: () => ServerUrls;
}

const PairBodySchema = z.object({ grant: z.optional(GrantSchema) }).strict();
const RevokeBodySchema = z.union([
  z.object({ sessionId: z.string().min(1).max(128) }).strict(),
  z.object({ hostId: z.string().min(1).max(128) }).strict(),
]);

export { pairUrlOf };

/** Handles one `/admin/...` request already past the Host check. */
export async function handleAdmin(
  ctx: AdminContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  if (req.headers.origin !== undefined || !bearerAllowed(req, ctx.token))
    return sendJson(res, 403, { error: 'forbidden' });
  const route = `${req.method ?? 'GET'} ${path}`;
  switch (route) {
    case 'POST /admin/pair':
      return withBody(req, res, PairBodySchema, (body) =>
        sendJson(res, 200, pair(ctx, body.grant ?? ctx.defaultGrant)),
      );
    case 'GET /admin/status':
      return sendJson(res, 200, await status(ctx));
    case 'GET /admin/sessions':
      return sendJson(res, 200, { sessions: await ctx.hub.listSessions() });
    case 'POST /admin/revoke':
      return withBody(req, res, RevokeBodySchema, (body) => revoke(ctx, res, body));
    default:
      return sendJson(res, 404, { error: 'not found' });
  }
}

function pair(ctx: AdminContext, grant: Grant): PairAnswer {
  const issued = ctx.pairing.issueCode(grant);
  ctx.logger.info('pairing code issued', { grant });
  return {
    code: issued.code,
    grant,
    expiresAt: new Date(issued.expiresAt).toISOString(),
    pairUrl: pairUrlOf(ctx.urls().demoUrl, issued.code),
    tradingEnabled: ctx.tradingEnabled ?? false,
  };
}

async function status(ctx: AdminContext): Promise<StatusAnswer> {
  return {
    version: ctx.version,
    pid: process.pid,
    urls: ctx.urls(),
    tradingEnabled: ctx.tradingEnabled ?? false,
    hub: ctx.hub.status(),
    hosts: ctx.pairing.store.list(),
    sessions: await ctx.hub.listSessions(),
  };
}

function revoke(ctx: AdminContext, res: ServerResponse, body: z.infer<typeof RevokeBodySchema>): void {
  const hostId = 'hostId' in body ? body.hostId : ctx.hub.hostOfSession(body.sessionId);
  if (hostId === null) {
    return sendJson(res, 404, {
      error: 'No open session has this id. `tradescript-mcp status` lists paired hosts; revoke one by its h_… id.',
    });
  }
  const credentialRevoked = ctx.pairing.revoke(hostId);
  const sessionsClosed = ctx.hub.revokeHost(hostId);
  if (!credentialRevoked && sessionsClosed === 0) return sendJson(res, 404, { error: 'No paired host has this id.' });
  sendJson(res, 200, { hostId, credentialRevoked, sessionsClosed });
}

async function withBody<S extends z.ZodType>(
  req: IncomingMessage,
  res: ServerResponse,
  schema: S,
  then: (body: z.infer<S>) => void,
): Promise<void> {
  const text = await readBody(req, MAX_ADMIN_BODY);
  if (text === null) return sendJson(res, 413, { error: 'body too large' }, { Connection: 'close' });
  let value: unknown;
  try {
    value = text === '' ? {} : JSON.parse(text);
  } catch {
    return sendJson(res, 400, { error: 'body is not JSON' });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) return sendJson(res, 400, { error: 'unexpected body' });
  then(parsed.data);
}

/**
 * `/mcp` over Streamable HTTP (SPEC §2, §11, §13): both protocol revisions on
 * one endpoint. Each request is classified by the SDK's own classifier
 * (`classifyInboundRequest`, what its `isLegacyRequest` runs), once: a POST
 * whose body carries the 2026-07-28 envelope claim goes straight to the SDK's
 * handler, which classifies it itself (see {@link routesLegacy}):
 *
 * - 2025-11-25 (no per-request envelope): our sessionful path, one transport
 *   and one MCP server (= one attachment) per `Mcp-Session-Id`, with
 *   `resources/subscribe`, the standalone GET stream and unsolicited
 *   notifications. A session with no request for `attachmentIdleMs` and no
 *   open stream ends as a detach.
 * - 2026-07-28: the SDK's stateless handler, a fresh server per request for
 *   the principal of the request; its `subscriptions/listen` streams hear the
 *   hub's changes from here, each principal's streams its own
 *   (`listenBus.ts`). A plain `tools/call` or `tools/list` it would classify
 *   modern takes the handler's serving steps without its classifier
 *   (`modernCall.ts`).
 *
 * The Host, Origin and token checks run before this (`portServer.ts`). The
 * SDK modules load on the first request, keeping startup fast.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as ServerSdk from '@modelcontextprotocol/server';
import type { McpHttpHandler, Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import { isRecord } from '../../protocol/index.js';
import type { HttpFront } from '../mcp/httpFront.js';
import { plainJsonRpcRequest } from '../mcp/jsonRpcShape.js';
import type { IdleClock } from '../mcp/attachments/statelessAttachments.js';
import { MAX_MCP_BODY_BYTES, readBody, sendJsonRpcError } from './body.js';
import { PrincipalListenBus } from './listenBus.js';
import { ModernCall } from './modernCall.js';
import { HELD_HEADERS_MS, sendWebResponse, toWebRequest, writeJsonAnswer } from './webBridge.js';

/** Makes this endpoint's MCP servers (loaded with the SDK, at the first request). */
export type McpServerFactory = () => Promise<HttpFront>;

type Sdk = typeof ServerSdk;

interface McpSession {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  /** Requests and streams of this session still open. */
  open: number;
  lastActive: number;
}

interface Loaded {
  sdk: Sdk;
  front: HttpFront;
  modern: McpHttpHandler;
  /** The modern path for vouched requests, the SDK's handler for the rest. */
  call: ModernCall;
  listen: PrincipalListenBus;
}

/** A `tools/call` request's event stream holds its headers for its first event (`webBridge.ts`); others send them at once. */
function heldHeadersMs(body: unknown): number {
  const toolCall = typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'tools/call';
  return toolCall ? HELD_HEADERS_MS : 0;
}

/** The reserved `_meta` key of the 2026-07-28 per-request envelope (the SDK's `PROTOCOL_VERSION_META_KEY`). */
const ENVELOPE_CLAIM_KEY = 'io.modelcontextprotocol/protocolVersion';

/**
 * Whether a parsed POST body is a message the SDK can only route to its
 * modern path (its answer or its refusal), never legacy: one object, not
 * `initialize`, whose `params._meta` carries the envelope claim (the SDK's
 * response schemas are strict, so such a body is never a posted response). Such a body is classified by
 * `modern.fetch` alone; the SDK classifies every request it is handed, so
 * skipping ours drops no check. `mcpEndpoint.test.ts` holds this to the
 * SDK's `isLegacyRequest` over valid, mutated and hostile bodies.
 */
export function claimsModernEnvelope(body: unknown): boolean {
  if (!isRecord(body) || body['method'] === 'initialize') return false;
  const params = body['params'];
  if (!isRecord(params)) return false;
  const meta = params['_meta'];
  return isRecord(meta) && ENVELOPE_CLAIM_KEY in meta;
}

/**
 * Whether `req` (with its parsed `body`, `undefined` for GET and DELETE) goes
 * to the 2025-11-25 sessionful path: the SDK's `isLegacyRequest` answer,
 * computed once and from Node's headers (no web `Request` needed). It is the
 * SDK's own classifier on the same inputs `isLegacyRequest` hands it: the
 * method, the three standard headers (Node joins repeated ones with ", " as
 * `Headers.get` does) and the body.
 */
export function routesLegacy(sdk: Pick<Sdk, 'classifyInboundRequest'>, req: IncomingMessage, body: unknown): boolean {
  const httpMethod = (req.method ?? 'GET').toUpperCase();
  if (httpMethod === 'POST') {
    // `isLegacyRequest` routes a POST with no JSON body legacy (we refuse those before this).
    if (body === undefined) return true;
    if (claimsModernEnvelope(body)) return false;
    if (plainLegacyRequest(req, body)) return true;
  }
  const { headers } = req;
  const outcome = sdk.classifyInboundRequest({
    httpMethod,
    ...headerField('protocolVersionHeader', headers['mcp-protocol-version']),
    ...headerField('mcpMethodHeader', headers['mcp-method']),
    ...headerField('mcpNameHeader', headers['mcp-name']),
    ...(body !== undefined && { body }),
  });
  return outcome.kind === 'legacy';
}

/**
 * The 2025-11-25 protocol versions a client names in `MCP-Protocol-Version`
 * on every request after `initialize` (the SDK's `SUPPORTED_PROTOCOL_VERSIONS`
 * before its first modern one, 2026-07-28), written exactly, without padding.
 */
const LEGACY_HEADER_VERSIONS = new Set(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']);

/**
 * True when the SDK's classifier certainly routes this POST legacy, by the
 * rule it applies to a request body without the envelope claim (called after
 * {@link claimsModernEnvelope} said no): a plain JSON-RPC request (sorted a
 * request by all three of its zod checks, {@link plainJsonRpcRequest}), not
 * `initialize`, with no `MCP-Protocol-Version` header or one naming a
 * 2025-11-25-era version. It saves the three zod parses of the body on every
 * 2025-11-25 call; false means only "not vouched for", and the SDK classifies.
 * `mcpRouting.test.ts` holds it to `classifyInboundRequest`.
 */
export function plainLegacyRequest(req: Pick<IncomingMessage, 'headers'>, body: unknown): boolean {
  if (!plainJsonRpcRequest(body) || body.method === 'initialize') return false;
  const version = req.headers['mcp-protocol-version'];
  return version === undefined || (typeof version === 'string' && LEGACY_HEADER_VERSIONS.has(version));
}

function headerField<K extends string>(key: K, value: string | string[] | undefined): Partial<Record<K, string>> {
  if (value === undefined) return {};
  return { [key]: Array.isArray(value) ? value.join(', ') : value } as Partial<Record<K, string>>;
}

const SYSTEM_CLOCK: IdleClock = {
  now: () => Date.now(),
  setInterval: (run, ms) => setInterval(run, ms),
  clearInterval: (timer) => clearInterval(timer as NodeJS.Timeout),
};

/** The `/mcp` endpoint. */
export class McpHttpEndpoint {
  private readonly sessions = new Map<string, McpSession>();
  private loaded: Promise<Loaded> | null = null;
  private sweeper: unknown = null;
  private readonly clock: IdleClock;

  constructor(
    private readonly createFront: McpServerFactory,
    private readonly logger: Logger,
    clock?: IdleClock,
    /**
     * The principal of the request being served: '' on one machine; in a
     * cluster the tenant its bearer named (read while the request runs).
     */
    private readonly principal: () => string = () => '',
  ) {
    this.clock = clock ?? SYSTEM_CLOCK;
  }

  /** Open 2025-11-25 sessions. */
  get size(): number {
    return this.sessions.size;
  }

  /** Requests and streams of 2025 sessions still open. */
  get openStreams(): number {
    let open = 0;
    for (const session of this.sessions.values()) open += session.open;
    return open;
  }

  /** Live attachments of this endpoint: sessions and stateless clients. */
  async attachmentCount(): Promise<number> {
    const loaded = this.loaded ? await this.loaded : null;
    return this.sessions.size + (loaded?.front.attachments.size ?? 0);
  }

  /** Handles one request already past the Host, Origin and token checks. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    if (Array.isArray(sessionId)) return sendJsonRpcError(res, 400, -32600, 'One Mcp-Session-Id header, please.');
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      res.writeHead(405, { Allow: 'GET, POST, DELETE' }).end();
      return;
    }
    const { sdk, front, call } = await this.load();
    // A POST's body is parsed here and handed to the SDK as `parsedBody` on every path below.
    let body: unknown = undefined;
    if (req.method === 'POST') {
      if (!sdk.isJsonContentType(req.headers['content-type'] ?? null)) {
        return sendJsonRpcError(res, 415, -32600, 'Content-Type must be application/json.');
      }
      const text = await readBody(req, MAX_MCP_BODY_BYTES);
      if (text === null) {
        res.setHeader('Connection', 'close');
        return sendJsonRpcError(res, 413, -32600, 'Request body too large (over 4 MB).');
      }
      try {
        body = JSON.parse(text);
      } catch {
        return sendJsonRpcError(res, 400, -32700, 'Parse error: the body is not JSON.');
      }
    }
    const request = toWebRequest(req, res);
    if (!routesLegacy(sdk, req, body)) {
      // A vouched request's JSON result is written as soon as it exists, ahead of its instance's teardown.
      const response = await call.fetch(request, body, (status, text) => writeJsonAnswer(res, status, text));
      if (response !== undefined) await sendWebResponse(res, response, heldHeadersMs(body));
      return;
    }
    return this.legacy(req, res, request, body, sessionId, sdk, front);
  }

  /** Loads the SDK and the front ahead of the first request. */
  async warm(): Promise<void> {
    await this.load();
  }

  /** Closes every MCP session (each detaches from the hub) and the stateless attachments. */
  async close(): Promise<void> {
    this.stopSweeping();
    await Promise.all([...this.sessions.values()].map((s) => s.server.close().catch(() => undefined)));
    this.sessions.clear();
    const loaded = this.loaded ? await this.loaded.catch(() => null) : null;
    if (!loaded) return;
    loaded.listen.close();
    await loaded.call.close();
    await loaded.modern.close().catch(() => undefined);
    await loaded.front.close();
  }

  /**
   * Ends every session idle for `attachmentIdleMs` with no request or stream
   * open (SPEC §2), as a detach; returns how many ended.
   */
  async sweep(): Promise<number> {
    const loaded = this.loaded ? await this.loaded : null;
    if (!loaded) return 0;
    const cutoff = this.clock.now() - loaded.front.idleMs;
    const idle = [...this.sessions.entries()].filter(([, s]) => s.open === 0 && s.lastActive <= cutoff);
    for (const [id, session] of idle) {
      this.sessions.delete(id);
      this.logger.info('mcp session idle: detached', { mcpSession: id });
      await session.server.close().catch(() => undefined);
    }
    if (this.sessions.size === 0) this.stopSweeping();
    return idle.length;
  }

  private load(): Promise<Loaded> {
    this.loaded ??= (async () => {
      const [sdk, front] = await Promise.all([import('@modelcontextprotocol/server'), this.createFront()]);
      // Each stream hears its own principal's hub events, from its first stream to its last.
      const listen = new PrincipalListenBus(this.principal, (notify) => front.publishTo(notify));
      const factory = () => front.request(this.principal());
      const onerror = (error: Error) =>
        this.logger.debug('mcp request refused', { reason: error.message.slice(0, 200) });
      const modern = sdk.createMcpHandler(factory, { legacy: 'reject', bus: listen, onerror });
      const call = new ModernCall(sdk, factory, modern, onerror);
      return { sdk, front, modern, call, listen };
    })();
    return this.loaded;
  }

  private async legacy(
    req: IncomingMessage,
    res: ServerResponse,
    request: Request,
    body: unknown,
    sessionId: string | undefined,
    sdk: Sdk,
    front: HttpFront,
  ): Promise<void> {
    let session = sessionId ? this.sessions.get(sessionId) : undefined;
    if (sessionId && !session) return sendJsonRpcError(res, 404, -32001, 'Session not found: initialize a new one.');
    if (!session) {
      if (req.method !== 'POST' || !sdk.isInitializeRequest(body)) {
        return sendJsonRpcError(res, 400, -32600, 'Missing Mcp-Session-Id: send initialize first.');
      }
      session = await this.open(sdk, front);
    }
    await this.serve(session, res, request, body);
    // An initialize the transport refused leaves no session: release its server and hub listeners.
    if (!sessionId && session.transport.sessionId === undefined) await session.server.close().catch(() => undefined);
  }

  /** Serves one request of a session, counting it (and its stream) as open until the response ends. */
  private async serve(session: McpSession, res: ServerResponse, request: Request, body: unknown): Promise<void> {
    session.open += 1;
    session.lastActive = this.clock.now();
    res.once('close', () => {
      session.open -= 1;
      session.lastActive = this.clock.now();
    });
    const response = await session.transport.handleRequest(request, body === undefined ? {} : { parsedBody: body });
    await sendWebResponse(res, response, heldHeadersMs(body));
  }

  private async open(sdk: Sdk, front: HttpFront): Promise<McpSession> {
    const server = front.session();
    let id: string | null = null;
    const session: McpSession = {
      transport: new sdk.WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          id = sessionId;
          this.sessions.set(sessionId, session);
          this.startSweeping();
          this.logger.debug('mcp session opened', { mcpSession: sessionId });
        },
      }),
      server,
      open: 0,
      lastActive: this.clock.now(),
    };
    // Set before connect: the SDK chains an existing onclose rather than replacing it.
    session.transport.onclose = () => {
      if (id !== null && this.sessions.get(id) === session) this.sessions.delete(id);
      this.logger.debug('mcp session closed', { mcpSession: id });
    };
    await server.connect(session.transport);
    return session;
  }

  private startSweeping(): void {
    if (this.sweeper !== null) return;
    void this.load().then(({ front }) => {
      if (this.sweeper !== null || this.sessions.size === 0) return;
      const every = Math.max(1_000, Math.min(60_000, Math.floor(front.idleMs / 4)));
      const timer = this.clock.setInterval(() => void this.sweep(), every);
      timer.unref?.();
      this.sweeper = timer;
    });
  }

  private stopSweeping(): void {
    if (this.sweeper === null) return;
    this.clock.clearInterval(this.sweeper);
    this.sweeper = null;
  }
}

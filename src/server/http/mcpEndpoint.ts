/**
 * `/mcp` over Streamable HTTP (SPEC §2, §11), stateful: one transport and one
 * MCP server (= one attachment) per `Mcp-Session-Id`, cleaned up on DELETE or
 * close. The SDK modules load on the first request, keeping startup fast.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '../log.js';
import { MAX_MCP_BODY_BYTES, readBody, sendJsonRpcError } from './body.js';

/** Makes the MCP server of one new connection. */
export type McpServerFactory = () => Promise<Server>;

interface McpConnection {
  transport: StreamableHTTPServerTransport;
  server: Server;
}

/** The `/mcp` endpoint. */
export class McpHttpEndpoint {
  private readonly connections = new Map<string, McpConnection>();

  constructor(
    private readonly createServer: McpServerFactory,
    private readonly logger: Logger,
  ) {}

  /** Open MCP connections. */
  get size(): number {
    return this.connections.size;
  }

  /** Handles one request already past the Host, Origin and token checks. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    if (Array.isArray(sessionId)) return sendJsonRpcError(res, 400, -32600, 'One Mcp-Session-Id header, please.');
    if (req.method === 'POST') return this.post(req, res, sessionId);
    if (req.method !== 'GET' && req.method !== 'DELETE') {
      res.writeHead(405, { Allow: 'GET, POST, DELETE' }).end();
      return;
    }
    const connection = sessionId ? this.connections.get(sessionId) : undefined;
    if (!sessionId) return sendJsonRpcError(res, 400, -32600, 'Missing Mcp-Session-Id: send initialize first.');
    if (!connection) return sendJsonRpcError(res, 404, -32001, 'Session not found: initialize a new one.');
    await connection.transport.handleRequest(req, res);
  }

  /** Loads the SDK's HTTP transport ahead of the first request. */
  async warm(): Promise<void> {
    await Promise.all([
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
  }

  /** Closes every MCP connection (each detaches from the hub). */
  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.server.close().catch(() => undefined)));
    this.connections.clear();
  }

  private async post(req: IncomingMessage, res: ServerResponse, sessionId: string | undefined): Promise<void> {
    const text = await readBody(req, MAX_MCP_BODY_BYTES);
    if (text === null) {
      res.setHeader('Connection', 'close');
      return sendJsonRpcError(res, 413, -32600, 'Request body too large (over 4 MB).');
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return sendJsonRpcError(res, 400, -32700, 'Parse error: the body is not JSON.');
    }
    if (sessionId) {
      const connection = this.connections.get(sessionId);
      if (!connection) return sendJsonRpcError(res, 404, -32001, 'Session not found: initialize a new one.');
      return connection.transport.handleRequest(req, res, body);
    }
    const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
    if (!isInitializeRequest(body)) {
      return sendJsonRpcError(res, 400, -32600, 'Missing Mcp-Session-Id: send initialize first.');
    }
    const connection = await this.open();
    await connection.transport.handleRequest(req, res, body);
    // An initialize the transport refused leaves no session: release its server and hub listeners.
    if (connection.transport.sessionId === undefined) await connection.server.close().catch(() => undefined);
  }

  private async open(): Promise<McpConnection> {
    const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
    const server = await this.createServer();
    let id: string | null = null;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        id = sessionId;
        this.connections.set(sessionId, connection);
        this.logger.debug('mcp session opened', { mcpSession: sessionId });
      },
    });
    const connection: McpConnection = { transport, server };
    // Set before connect: the SDK chains an existing onclose rather than replacing it.
    transport.onclose = () => {
      if (id !== null && this.connections.get(id) === connection) this.connections.delete(id);
      this.logger.debug('mcp session closed', { mcpSession: id });
    };
    await server.connect(transport);
    return connection;
  }
}

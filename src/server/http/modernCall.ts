/**
 * A 2026-07-28 request served without the SDK's classifier (issue 15).
 *
 * The SDK's `createMcpHandler` sorts every body it is handed with
 * `classifyInboundRequest`: three zod parses of the whole body (result
 * response, error response, request) and a zod parse of the `_meta`
 * envelope, before the same body is parsed again at dispatch. For a
 * `tools/call` or `tools/list` that {@link plainModernRequest} vouches for,
 * the classifier's answer is known: modern, revision 2026-07-28. Then
 * {@link ModernCall} takes the steps the SDK's handler takes for that answer
 * (SDK 2.4 `serveModern` for a plain `Server` product): mark the instance
 * modern, install `server/discover`, seed the client's identity from the
 * envelope, count it in flight, and serve the message through the SDK's own
 * `PerRequestHTTPServerTransport`. Everything else goes to the SDK's handler.
 * The SDK's request check, era gate and envelope check at dispatch still run.
 * `modernCall.test.ts` holds both to the SDK's handler over generated
 * requests.
 */
import type * as ServerSdk from '@modelcontextprotocol/server';
import type { JSONRPCRequest, McpHttpHandler, Server } from '@modelcontextprotocol/server';
import { plainJsonRpcRequest, plainObject } from '../mcp/jsonRpcShape.js';
import { answerJsonThrough, type JsonAnswerWriter } from '../mcp/perRequestSend.js';

type Sdk = typeof ServerSdk;

/** The one modern revision the SDK serves (its `SUPPORTED_MODERN_PROTOCOL_VERSIONS`, not exported). */
const MODERN_REVISION = '2026-07-28';

/** Methods vouched for: no special route in the SDK's handler, no required client capability. */
const METHODS = new Set(['tools/call', 'tools/list']);

/** A tool name that `Mcp-Name` can carry as it is: no padding to strip, no Base64 sentinel (`=?base64?…?=`). */
const PLAIN_NAME = /^[A-Za-z0-9_./-]{1,128}$/;

/** The standard request headers as the SDK reads them off the web `Request`. */
export interface StandardHeaders {
  protocolVersion: string | undefined;
  method: string | undefined;
  name: string | undefined;
}

/** The headers the SDK's classifier and header check read, from a web `Request`. */
export function standardHeaders(request: Request): StandardHeaders {
  const { headers } = request;
  return {
    protocolVersion: headers.get('mcp-protocol-version') ?? undefined,
    method: headers.get('mcp-method') ?? undefined,
    name: headers.get('mcp-name') ?? undefined,
  };
}

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

/** `clientInfo` as the SDK's `ImplementationSchema` reads it, when certain: absent, or strings only, no icons. */
function plainClientInfo(info: unknown): boolean {
  if (info === undefined) return true;
  return (
    plainObject(info) &&
    typeof info.name === 'string' &&
    typeof info.version === 'string' &&
    optionalString(info.title) &&
    optionalString(info.websiteUrl) &&
    optionalString(info.description) &&
    info.icons === undefined
  );
}

/** `clientCapabilities` the SDK's 2026 schema accepts whatever else it holds: none of its five named keys. */
function plainCapabilities(capabilities: unknown): boolean {
  return (
    plainObject(capabilities) &&
    capabilities.experimental === undefined &&
    capabilities.sampling === undefined &&
    capabilities.elicitation === undefined &&
    capabilities.roots === undefined &&
    capabilities.extensions === undefined
  );
}

/**
 * True when the SDK's handler certainly classifies this POST modern,
 * revision 2026-07-28, and its standard-header check passes: a plain JSON-RPC
 * request ({@link plainJsonRpcRequest}) for `tools/call` or `tools/list`,
 * plain objects throughout, whose `_meta` envelope names 2026-07-28 and holds
 * capabilities without named keys, string-only client info and no log level;
 * `MCP-Protocol-Version` and `Mcp-Method` written exactly as the body says;
 * for `tools/call`, a plain tool name and `Mcp-Name` equal to it. False means
 * only "not vouched for": the SDK's handler decides.
 */
export function plainModernRequest(
  sdk: Pick<
    Sdk,
    'PROTOCOL_VERSION_META_KEY' | 'CLIENT_INFO_META_KEY' | 'CLIENT_CAPABILITIES_META_KEY' | 'LOG_LEVEL_META_KEY'
  >,
  headers: StandardHeaders,
  body: unknown,
): body is JSONRPCRequest {
  if (!plainJsonRpcRequest(body) || !plainObject(body) || !METHODS.has(body.method)) return false;
  if (headers.protocolVersion !== MODERN_REVISION || headers.method !== body.method) return false;
  const params = body.params;
  if (!plainObject(params)) return false;
  if (body.method === 'tools/call') {
    const name = params['name'];
    if (typeof name !== 'string' || !PLAIN_NAME.test(name) || headers.name !== name) return false;
  }
  const meta = params['_meta'];
  return (
    plainObject(meta) &&
    meta[sdk.PROTOCOL_VERSION_META_KEY] === MODERN_REVISION &&
    plainCapabilities(meta[sdk.CLIENT_CAPABILITIES_META_KEY]) &&
    plainClientInfo(meta[sdk.CLIENT_INFO_META_KEY]) &&
    meta[sdk.LOG_LEVEL_META_KEY] === undefined
  );
}

/** The SDK `Server`'s private parts `serveModern` writes (SDK 2.4); reached only when all are there. */
interface ServerSeam {
  _negotiatedProtocolVersion: unknown;
  _supportedProtocolVersions: string[];
  _clientCapabilities: unknown;
  _clientVersion: unknown;
  _ondiscover(): unknown;
}

function seamOf(server: Server): ServerSeam | undefined {
  const seam = server as unknown as Partial<Record<keyof ServerSeam, unknown>>;
  const found =
    '_negotiatedProtocolVersion' in seam &&
    Array.isArray(seam._supportedProtocolVersions) &&
    '_clientCapabilities' in seam &&
    '_clientVersion' in seam &&
    typeof seam._ondiscover === 'function';
  return found ? (seam as ServerSeam) : undefined;
}

/** The JSON-RPC error answer the SDK's handler builds itself (`jsonRpcErrorResponse`). */
function internalError(id: string | number): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id },
    { status: 500 },
  );
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/**
 * The SDK handler's modern serving for vouched requests, next to the
 * handler itself (which serves everything else and the fallbacks).
 */
export class ModernCall {
  /** Instances with an exchange in flight, closed by {@link close} as the SDK's handler closes its own. */
  private readonly inflight = new Set<Server>();
  private closed = false;

  constructor(
    private readonly sdk: Sdk,
    private readonly factory: () => Server,
    private readonly handler: McpHttpHandler,
    private readonly onerror: (error: Error) => void,
  ) {}

  /**
   * Answers one POST already past our checks and parsed: through the
   * vouched path when {@link plainModernRequest} says so, otherwise (and
   * when the SDK's private parts are not as expected) through the SDK's
   * handler. With `write`, a vouched request's JSON result is written
   * through it as soon as the SDK's transport has it, before the instance's
   * teardown (`perRequestSend.ts`); the answer is then `undefined`, and
   * otherwise the `Response` to send.
   */
  async fetch(request: Request, body: unknown, write?: JsonAnswerWriter): Promise<Response | undefined> {
    if (
      this.closed ||
      !this.sdk.isJsonContentType(request.headers.get('content-type')) ||
      !plainModernRequest(this.sdk, standardHeaders(request), body)
    ) {
      return this.handler.fetch(request, { parsedBody: body });
    }
    try {
      return await this.serve(request, body, write);
    } catch (error) {
      this.report(toError(error));
      return internalError(body.id);
    }
  }

  /** Closes the instances still serving, as the SDK's handler does. */
  async close(): Promise<void> {
    this.closed = true;
    const closing = [...this.inflight].map((server) => server.close().catch(() => undefined));
    this.inflight.clear();
    await Promise.all(closing);
  }

  private report(error: Error): void {
    try {
      this.onerror(error);
    } catch {
      // reporting only, as the SDK's handler
    }
  }

  /** SDK 2.4 `serveModern` for a classified request, product a plain `Server`, no `subscriptions/listen`. */
  private async serve(
    request: Request,
    message: JSONRPCRequest,
    write?: JsonAnswerWriter,
  ): Promise<Response | undefined> {
    const server = this.factory();
    const seam = seamOf(server);
    if (server instanceof this.sdk.McpServer || seam === undefined) {
      await server.close().catch(() => undefined);
      return this.handler.fetch(request, { parsedBody: message });
    }
    const notServing = () => {
      if (server.transport !== undefined) {
        throw new Error(
          'The factory returned an instance that is still serving another request. Return a new instance for each request.',
        );
      }
    };
    // The SDK asserts this twice, before and after its McpServer-only rungs, which a plain Server skips.
    notServing();
    seam._negotiatedProtocolVersion = MODERN_REVISION;
    if (!seam._supportedProtocolVersions.includes(MODERN_REVISION)) {
      seam._supportedProtocolVersions = [...seam._supportedProtocolVersions, MODERN_REVISION];
    }
    server.setRequestHandler('server/discover', () => seam._ondiscover() as never);
    const meta = (message.params as Record<string, unknown>)['_meta'] as Record<string, unknown>;
    const capabilities = meta[this.sdk.CLIENT_CAPABILITIES_META_KEY];
    const clientInfo = meta[this.sdk.CLIENT_INFO_META_KEY];
    if (capabilities !== undefined) seam._clientCapabilities = capabilities;
    if (clientInfo !== undefined) seam._clientVersion = clientInfo;
    const previousOnClose = server.onclose;
    this.inflight.add(server);
    const onExchangeClose = () => {
      this.inflight.delete(server);
      if (server.onclose === onExchangeClose) server.onclose = previousOnClose;
      previousOnClose?.();
    };
    server.onclose = onExchangeClose;
    try {
      const transport = new this.sdk.PerRequestHTTPServerTransport({
        classification: { era: 'modern', revision: MODERN_REVISION },
      });
      let written = false;
      if (write !== undefined) answerJsonThrough(transport, (status, text) => (written = write(status, text)));
      await server.connect(transport);
      const response = await transport.handleMessage(message, { request });
      return written ? undefined : response;
    } catch (error) {
      if (error instanceof this.sdk.SdkError && error.code === this.sdk.SdkErrorCode.ConnectionClosed) {
        return new Response(null, { status: 499 });
      }
      await server.close().catch(() => undefined);
      this.inflight.delete(server);
      this.report(toError(error));
      return internalError(message.id);
    }
  }
}

/**
 * The SDK `Server` with our own `tools/call` handler served without the SDK's
 * repeated work (issue 15). For `tools/call` the SDK 2.4 parses the request
 * with the era's wire schema twice (its `_wrapHandler` hook, then the 2-arg
 * handler wrapper) and parses our whole result once more before encoding it.
 * For the handler registered by {@link ToolsCallServer.serveOwnToolCalls}:
 *
 * - the request is checked once, by the same SDK check (`_wireCodec().
 *   validateRequest`), answered with the same code and message on failure,
 *   and the handler receives that check's parsed value, as it did from the
 *   second parse (the parse is deterministic: same schema, same input);
 * - the result is not parsed again: every result our handler builds passes
 *   the SDK's `validateResult` unchanged, on both eras (property-tested in
 *   `toolsCallServer.test.ts` over all six tools, successes and every error
 *   envelope), so the parse could only return a deep-equal copy.
 *
 * Any other `tools/call` handler (a test fixture's, through
 * `McpExtension`) and every other method keep the SDK's wrapper unchanged.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type BaseContext,
  type CallToolRequest,
  type MessageExtraInfo,
  type CallToolResult,
  type JSONRPCRequest,
  type Result,
  type ServerContext,
  type StandardSchemaV1,
  type Transport,
} from '@modelcontextprotocol/server';
import { lightenPerRequestSend } from './perRequestSend.js';
import { lightenStdioChannel } from './stdioChannel.js';
import { plainJsonRpcRequest } from './jsonRpcShape.js';

type WrappedHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/** The SDK's multi-round-trip seam (`requestState`, input-required); private in 2.4, so reached by name. */
interface InputRequiredSeam {
  _invokeInputRequiredCapableHandler(
    method: string,
    handler: WrappedHandler,
    request: JSONRPCRequest,
    ctx: ServerContext,
  ): Promise<Result>;
}

/** The SDK's request dispatch (`Protocol._onrequest`); private in 2.4, so reached by name. */
interface RequestSeam {
  _onrequest(request: JSONRPCRequest, extra: Parameters<NonNullable<Transport['onmessage']>>[1]): void;
}

/**
 * The params schema of our registration: it passes what it is given. It only
 * ever sees params the SDK's wire schema has just accepted (our `_wrapHandler`
 * checks the whole request first); checking them again is the cost removed.
 */
const CHECKED_BY_WIRE_SCHEMA: StandardSchemaV1<CallToolRequest['params']> = {
  '~standard': {
    version: 1,
    vendor: 'tradescript',
    validate: (value) => ({ value: value as CallToolRequest['params'] }),
  },
};

/** The keys `Server.buildContext` (SDK 2.4) adds to the request part of a context, in its order. */
const CONTEXT_SLOTS = Object.freeze({ log: undefined, elicitInput: undefined, requestSampling: undefined });

/** A `Server` whose own `tools/call` handler is checked once on the way in and not re-parsed on the way out. */
export class ToolsCallServer extends Server {
  /** True only while our own handler is being registered. */
  private registeringOwn = false;

  /** Serves `tools/call` with our handler (see the file's comment for what the SDK still checks). */
  serveOwnToolCalls(handler: (request: CallToolRequest, ctx: ServerContext) => Promise<CallToolResult>): void {
    this.registeringOwn = true;
    try {
      this.setRequestHandler('tools/call', { params: CHECKED_BY_WIRE_SCHEMA }, (params, ctx) =>
        handler({ method: 'tools/call', params }, ctx),
      );
    } finally {
      this.registeringOwn = false;
    }
  }

  /**
   * Connects as the SDK does, then sends each message {@link plainJsonRpcRequest}
   * vouches for straight to the SDK's request dispatch. The SDK's own sorting
   * (`Protocol.connect`) tries the result and error response schemas with zod
   * first, failing both for every request, then the request schema; a vouched
   * request is one all three would sort as a request (property-tested in
   * `stdioTransport.test.ts`), so only the cost changes. Everything else goes
   * through the SDK's sorting as before. On stdio the SDK's channel is
   * lightened the same way ({@link lightenStdioChannel}), and so is the
   * stateless HTTP transport's answer ({@link lightenPerRequestSend}).
   */
  override async connect(transport: Transport): Promise<void> {
    lightenStdioChannel(transport);
    lightenPerRequestSend(transport);
    // What the SDK's sorting calls first with every message (it captures it too).
    const before = transport.onmessage;
    await super.connect(transport);
    const sorted = transport.onmessage;
    const seam = this as unknown as Partial<RequestSeam>;
    if (!sorted || typeof seam._onrequest !== 'function') return;
    transport.onmessage = (message, extra) => {
      if (!plainJsonRpcRequest(message)) return sorted(message, extra);
      before?.(message, extra);
      (this as unknown as RequestSeam)._onrequest(message, extra);
    };
  }

  /**
   * Closes as the SDK does, but the `ConnectionClosed` error it builds on
   * every close is built without a captured stack when no request of ours to
   * the client is waiting for its answer (`_responseHandlers` empty, reached
   * by name; if it disappears, nothing changes). A stateless 2026-07-28
   * request closes its server every time, and the stack capture was 3.7 % of
   * the server's CPU per call. The error then only becomes the abort reason
   * of requests still registered (the one just answered): same class, code,
   * message and data, its `stack` just the first line. The limit is restored
   * before the SDK calls `onclose`, so nothing else is built without a stack.
   */
  protected override _onclose(): void {
    const pending = (this as unknown as { _responseHandlers?: unknown })._responseHandlers;
    if (!(pending instanceof Map) || pending.size > 0) return super._onclose();
    // `onclose` may be a field or an accessor (createMcpServer's chainHook): it is shadowed, then put back as it was.
    const descriptor = Object.getOwnPropertyDescriptor(this, 'onclose');
    if (!descriptor?.configurable) return super._onclose();
    const onclose = this.onclose;
    const limit = Error.stackTraceLimit;
    let restored = false;
    const restore = () => {
      if (restored) return;
      restored = true;
      Error.stackTraceLimit = limit;
      Object.defineProperty(this, 'onclose', descriptor);
    };
    Object.defineProperty(this, 'onclose', {
      configurable: true,
      writable: true,
      value: () => {
        restore();
        onclose?.call(this);
      },
    });
    Error.stackTraceLimit = 0;
    try {
      super._onclose();
    } finally {
      restore();
    }
  }

  /**
   * The SDK's context, built by the SDK, from a request part whose hidden
   * class V8 can share. The SDK writes `{ ...ctx.mcpReq, log, elicitInput,
   * requestSampling }`; on Node 20's V8 an object spread followed by keys the
   * source lacks gets a hidden class of its own every time, in old space, and
   * each request's context then outlived its request by a scavenge or two
   * (about 1.6 KB per call promoted; bench/serverGc.mjs, issue 15). Handing
   * the SDK a copy that already has the three keys (as undefined, last, where
   * the SDK puts them) makes its literal only overwrite them: same keys, same
   * order, same values, one shared hidden class. The copy is built with
   * `Object.assign` onto a fresh object (own enumerable keys in order, as the
   * spread reads them; the SDK's request part has no `__proto__` key).
   */
  protected override buildContext(ctx: BaseContext, transportInfo?: MessageExtraInfo): ServerContext {
    const mcpReq = Object.assign({}, ctx.mcpReq, CONTEXT_SLOTS);
    return super.buildContext({ ...ctx, mcpReq }, transportInfo);
  }

  protected override _wrapHandler(method: string, handler: WrappedHandler): WrappedHandler {
    const seam = this as unknown as Partial<InputRequiredSeam>;
    if (
      method !== 'tools/call' ||
      !this.registeringOwn ||
      typeof seam._invokeInputRequiredCapableHandler !== 'function'
    )
      return super._wrapHandler(method, handler);
    const invoke = seam._invokeInputRequiredCapableHandler.bind(this);
    return async (request, ctx) => {
      // The SDK's own check and its answer on failure, word for word (Server._wrapHandler, SDK 2.4).
      const checked = this._wireCodec().validateRequest('tools/call', request);
      if (!checked.ok) {
        const notInEra = checked.reason === 'not-in-era';
        throw new ProtocolError(
          notInEra ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidParams,
          notInEra
            ? 'No wire schema for tools/call in the resolved era'
            : `Invalid tools/call request: ${checked.message}`,
        );
      }
      // Our handler never answers input_required; its results need no normalizing (they carry `content`).
      return invoke('tools/call', handler, { ...request, params: checked.value.params }, ctx);
    };
  }
}

/**
 * The SDK's stateless 2026-07-28 HTTP transport answering a tool call
 * without parsing the result twice (issue 15).
 *
 * `PerRequestHTTPServerTransport.send` (SDK 2.4) sorts every outbound message
 * with zod: `isJSONRPCResultResponse || isJSONRPCErrorResponse` (a parse of
 * the whole result), then `isJSONRPCErrorResponse` once more for a response
 * (which fails for a result, building zod issues), only to learn that the
 * message is a result response. {@link lightenPerRequestSend} replaces `send`
 * on the transport instance: a result response that
 * {@link plainJsonRpcResultResponse} vouches for takes the SDK's own steps for
 * a result response, without the parses; every other message goes to the
 * SDK's `send` unchanged.
 *
 * The SDK settles a JSON answer as a `Response.json` and closes the transport
 * in a microtask queued right after: the instance's teardown (its `onclose`
 * chain, the handler's abort) runs before the promise chain carrying that
 * `Response` reaches whoever writes it to the socket. A transport given a
 * {@link JsonAnswerWriter} ({@link answerJsonThrough}) has that answer
 * written at once, in `send`, before the close is queued; the exchange then
 * settles with a body-less placeholder.
 */
import type { JSONRPCMessage, RequestId, Transport } from '@modelcontextprotocol/server';
import { plainJsonRpcResultResponse } from './jsonRpcShape.js';

type Send = Transport['send'];

/**
 * Writes a JSON answer (`status`, `text` the JSON-RPC message) to the HTTP
 * response as the SDK's `Response.json` would reach it; false when it cannot
 * (the response already started or the client left), and then the SDK's
 * `Response` is made as before.
 */
export type JsonAnswerWriter = (status: number, text: string) => boolean;

/** Where a transport's {@link JsonAnswerWriter} is kept (on the instance, one exchange long). */
const ANSWER_WRITER = Symbol('tradescript.jsonAnswerWriter');

/**
 * Has the JSON answer of `transport` (an SDK per-request transport that
 * {@link lightenPerRequestSend} lightens) written by `write`, at the moment
 * the SDK would settle it. Other transports never call `write`.
 */
export function answerJsonThrough(transport: Transport, write: JsonAnswerWriter): void {
  Object.defineProperty(transport, ANSWER_WRITER, { value: write, configurable: true });
}

/** The transport's private parts (SDK 2.4 `PerRequestHTTPServerTransport`); reached only when all are there. */
interface PerRequestSeam {
  _closed: boolean;
  _requestId: RequestId | undefined;
  _terminalDelivered: boolean;
  _sse: unknown;
  _responseMode: unknown;
  upgradeToSse(): void;
  writeMessageFrame(message: JSONRPCMessage): void;
  finalizeStream(): void;
  settleResponse(response: Response): void;
  close(): Promise<void>;
  onerror?: (error: Error) => void;
  send: Send;
  [ANSWER_WRITER]?: JsonAnswerWriter;
}

const METHODS = ['upgradeToSse', 'writeMessageFrame', 'finalizeStream', 'settleResponse', 'close', 'send'] as const;

function isPerRequest(transport: object): transport is PerRequestSeam {
  const seam = transport as Partial<Record<keyof PerRequestSeam, unknown>>;
  return (
    transport.constructor.name === 'PerRequestHTTPServerTransport' &&
    typeof seam._closed === 'boolean' &&
    typeof seam._terminalDelivered === 'boolean' &&
    '_requestId' in seam &&
    '_sse' in seam &&
    '_responseMode' in seam &&
    METHODS.every((name) => typeof seam[name] === 'function')
  );
}

/**
 * Replaces `send` on the SDK's per-request transport (when `transport` is
 * one; anything else is left as it is) with the SDK's steps for a result
 * response, word for word (SDK 2.4), for the messages vouched for: nothing
 * once closed; an id that is not the request's reported through `onerror`;
 * one terminal answer only; on an event stream the frame and the stream's end,
 * otherwise the JSON answer, then the transport closes after this turn's
 * microtasks. The JSON answer goes to the transport's writer first, when it
 * has one ({@link answerJsonThrough}): the same text `Response.json` would
 * carry (`JSON.stringify`, which throws where it throws), status 200.
 */
export function lightenPerRequestSend(transport: Transport): void {
  if (!isPerRequest(transport)) return;
  const t = transport;
  const sdkSend = t.send;
  t.send = async function send(message, options) {
    if (!plainJsonRpcResultResponse(message)) return sdkSend.call(t, message, options);
    if (t._closed) return;
    if (t._requestId === undefined || message.id !== t._requestId) {
      t.onerror?.(new Error(`Received a response for an unknown request id: ${String(message.id)}`));
      return;
    }
    if (t._terminalDelivered) return;
    t._terminalDelivered = true;
    if (t._sse !== undefined || t._responseMode === 'sse') {
      if (t._sse === undefined) t.upgradeToSse();
      t.writeMessageFrame(message);
      t.finalizeStream();
      return;
    }
    const write = t[ANSWER_WRITER];
    if (write !== undefined && write(200, JSON.stringify(message)))
      t.settleResponse(new Response(null, { status: 200 }));
    else t.settleResponse(Response.json(message, { status: 200, headers: { 'Content-Type': 'application/json' } }));
    queueMicrotask(() => void t.close());
  };
}

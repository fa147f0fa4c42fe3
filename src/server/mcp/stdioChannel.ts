/**
 * The SDK's stdio channel without its per-message zod sorting (issue 15).
 *
 * `serveStdio` (SDK 2.4) connects our server to a private channel
 * (`StdioConnectionChannel`) between the wire and the `Protocol`. It sorts
 * every message with zod only to keep count of unanswered requests: `deliver`
 * runs `isJSONRPCRequest` on each inbound message, and `send` runs
 * `isJSONRPCResultResponse || isJSONRPCErrorResponse` on each outbound one,
 * which parses a whole tool result. {@link lightenStdioChannel} replaces the
 * two methods on the channel instance: a request that
 * {@link plainJsonRpcRequest} vouches for and a result response that
 * {@link plainJsonRpcResultResponse} vouches for take the SDK's own steps
 * without the parse; every other message goes to the SDK's method unchanged.
 */
import type { JSONRPCMessage, RequestId, Transport } from '@modelcontextprotocol/server';
import { isRecord } from '../../protocol/index.js';
import { plainJsonRpcRequest, plainJsonRpcResultResponse } from './jsonRpcShape.js';

type Extra = Parameters<NonNullable<Transport['onmessage']>>[1];
type Send = Transport['send'];

/** The channel's private parts (SDK 2.4 `StdioConnectionChannel`); reached only when all are there. */
interface ChannelSeam {
  _closed: boolean;
  _pendingRequests: Set<RequestId>;
  _settle(id: RequestId): void;
  _wire: { send: Send };
  _outboundIntercept: ((message: JSONRPCMessage) => unknown) | undefined;
  deliver(message: JSONRPCMessage, extra?: Extra): void;
  send: Send;
  onmessage?: Transport['onmessage'];
}

function isChannel(transport: object): transport is ChannelSeam {
  const seam = transport as Partial<Record<keyof ChannelSeam, unknown>>;
  return (
    transport.constructor.name === 'StdioConnectionChannel' &&
    typeof seam._closed === 'boolean' &&
    seam._pendingRequests instanceof Set &&
    typeof seam._settle === 'function' &&
    isRecord(seam._wire) &&
    typeof seam._wire.send === 'function' &&
    '_outboundIntercept' in seam &&
    (seam._outboundIntercept === undefined || typeof seam._outboundIntercept === 'function') &&
    typeof seam.deliver === 'function' &&
    typeof seam.send === 'function'
  );
}

/**
 * Replaces `send` and `deliver` on the SDK's stdio channel (when `transport`
 * is one; anything else is left as it is) with the SDK's own steps for the
 * messages vouched for, word for word (SDK 2.4 `StdioConnectionChannel`):
 * a vouched request is counted as unanswered and delivered; a vouched result
 * response settles its id, then goes to the wire unless the channel is closed
 * or the outbound intercept handled it.
 */
export function lightenStdioChannel(transport: Transport): void {
  if (!isChannel(transport)) return;
  const channel = transport;
  const sdkDeliver = channel.deliver;
  const sdkSend = channel.send;
  channel.deliver = function deliver(message, extra) {
    if (!plainJsonRpcRequest(message)) return sdkDeliver.call(channel, message, extra);
    if (channel._closed) return;
    channel._pendingRequests.add(message.id);
    channel.onmessage?.(message, extra);
  };
  channel.send = async function send(message, options) {
    if (!plainJsonRpcResultResponse(message)) return sdkSend.call(channel, message, options);
    channel._settle(message.id);
    if (channel._closed) return;
    if (channel._outboundIntercept?.(message) === 'handled') return;
    return channel._wire.send(message, options);
  };
}

/**
 * Exact, cheap sorting of the plain JSON-RPC messages of every call (issue 15):
 * each predicate vouches only for values the SDK's own zod checks read the same
 * way (property-tested against them in `stdioTransport.test.ts` and
 * `stdioChannel.test.ts`); "false" means only "not vouched for", and the
 * caller then leaves the value to the SDK. Used on stdio and HTTP alike.
 */
import type { JSONRPCMessage, JSONRPCRequest, JSONRPCResultResponse } from '@modelcontextprotocol/server';
import { isRecord } from '../../protocol/index.js';

const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

/** `z.union([z.string(), z.number().int()])`, the SDK's request id and progress token. */
function isIdOrToken(value: unknown): boolean {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/**
 * A request's or notification's params as the SDK's schema reads them
 * (`{ _meta?: { progressToken?: string | int, … } , … }`, loose), when this
 * is certain; a related-task key or a `__proto__` key is left to zod, whose
 * copy of the value could differ from the value itself.
 */
function plainParams(params: unknown): boolean {
  if (params === undefined) return true;
  if (!isRecord(params) || Object.hasOwn(params, '__proto__')) return false;
  const meta = params._meta;
  if (meta === undefined) return !Object.hasOwn(params, '_meta');
  if (!isRecord(meta) || Object.hasOwn(meta, '__proto__') || Object.hasOwn(meta, RELATED_TASK_META_KEY)) {
    return false;
  }
  const token = meta.progressToken;
  return token === undefined ? !Object.hasOwn(meta, 'progressToken') : isIdOrToken(token);
}

/**
 * True when `value` is certainly a JSON-RPC request or notification as the
 * SDK's `JSONRPCMessageSchema` reads it, and its parse would return an equal
 * value (strict top level, loose params): then it is delivered as it is.
 * False means only "not vouched for": the SDK's parse decides.
 */
export function plainJsonRpc(value: unknown): value is JSONRPCMessage {
  if (!isRecord(value) || value.jsonrpc !== '2.0' || typeof value.method !== 'string') return false;
  const hasId = Object.hasOwn(value, 'id');
  if (hasId && !isIdOrToken(value.id)) return false;
  for (const key in value) {
    if (key !== 'jsonrpc' && key !== 'method' && key !== 'params' && key !== 'id') return false;
  }
  return plainParams(value.params);
}

/**
 * True when `value` is certainly a JSON-RPC request as the SDK's `Protocol`
 * sorts messages (`isJSONRPCRequest` true, neither response check true):
 * {@link plainJsonRpc} with an id, which leaves no room for `result` or `error`.
 */
export function plainJsonRpcRequest(value: unknown): value is JSONRPCRequest {
  return plainJsonRpc(value) && Object.hasOwn(value, 'id');
}

/** An object made by `{}` or JSON.parse: no prototype but Object's. */
export function plainObject(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * True when `value` is certainly a JSON-RPC result response as the SDK's
 * `isJSONRPCResultResponse` reads it (strict `{ jsonrpc: '2.0', id, result }`,
 * `id` a string or safe integer, `result` a loose object whose `_meta`, if
 * any, is a loose object too): plain objects, exactly those three own keys.
 * False means only "not vouched for".
 */
export function plainJsonRpcResultResponse(value: unknown): value is JSONRPCResultResponse {
  if (!plainObject(value) || value.jsonrpc !== '2.0') return false;
  const { id, result } = value;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  if (!plainObject(result)) return false;
  // `_meta` is a loose object whose one named key (serverInfo) accepts anything (`.catch`); 2026-07-28 stamps it.
  if (Object.hasOwn(result, '_meta') ? !plainObject(result._meta) : '_meta' in result) return false;
  let keys = 0;
  for (const key in value) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'result') return false;
    keys += 1;
  }
  return keys === 3;
}

/**
 * The stdio line of a JSON-RPC message (SPEC §11), as the SDK's
 * `serializeMessage` writes it, with one cost removed (issue 15): a tool
 * result carries its payload twice (SPEC §4), as the text item, already
 * `JSON.stringify(payload)`, and as `structuredContent`, which the SDK's
 * serializer walked a second time to write that same text again. A payload
 * whose text was remembered ({@link rememberJsonText}) is written from it.
 */
import { serializeMessage, type JSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * Where a value's known `JSON.stringify` text is kept: a non-enumerable
 * property under a symbol of this module, so no serializer, spread or copy
 * sees or carries it. Not a WeakMap: a scavenge keeps every WeakMap value
 * alive whether or not its key is, so each call's text outlived its call by a
 * scavenge (issue 15; bench/serverGc.mjs).
 */
const JSON_TEXT = Symbol('jsonText');

/**
 * Records that `JSON.stringify(value) === text`. The caller promises the value
 * is not changed afterwards (a tool result's payload, built and sent once).
 * A value that cannot take a property is left as it is (its line is then
 * serialized in full).
 */
export function rememberJsonText(value: object, text: string): void {
  if (Object.isExtensible(value)) Object.defineProperty(value, JSON_TEXT, { value: text, configurable: true });
}

/** The text recorded for `value` by {@link rememberJsonText}, if any. */
function rememberedText(value: object): string | undefined {
  // The symbol is this module's own: only rememberJsonText puts it on an object.
  const text: unknown = (value as { [JSON_TEXT]?: unknown })[JSON_TEXT];
  return typeof text === 'string' ? text : undefined;
}

/** An object JSON.stringify writes member by member: an own `Object.prototype` object without `toJSON`. */
function plainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype &&
    typeof (value as { toJSON?: unknown }).toJSON !== 'function'
  );
}

/** A member value JSON.stringify would hand a key to (its `toJSON(key)`): written here only without one. */
function keyFree(value: unknown): boolean {
  return typeof value !== 'object' || value === null || typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/**
 * `JSON.stringify(object)`, each member's text given by `member` (undefined
 * leaves the member out, as JSON.stringify does for undefined, functions and
 * symbols); null when a member is not {@link keyFree}.
 */
function objectText(object: Record<string, unknown>, member: (key: string, value: unknown) => string | undefined) {
  let text = '';
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (!keyFree(value)) return null;
    const json = member(key, value);
    if (json === undefined) continue;
    text += `${text === '' ? '' : ','}${JSON.stringify(key)}:${json}`;
  }
  return `{${text}}`;
}

/** `serializeMessage(message)`, byte for byte; a result's remembered `structuredContent` is not walked again. */
export function messageLine(message: JSONRPCMessage): string {
  const result = (message as { result?: unknown }).result;
  if (!plainObject(message) || !plainObject(result)) return serializeMessage(message);
  const structured = result.structuredContent;
  const known = typeof structured === 'object' && structured !== null ? rememberedText(structured) : undefined;
  if (known === undefined) return serializeMessage(message);
  const resultText = objectText(result, (key, value) => (key === 'structuredContent' ? known : JSON.stringify(value)));
  if (resultText === null) return serializeMessage(message);
  const line = objectText(message, (key, value) => (key === 'result' ? resultText : JSON.stringify(value)));
  return line === null ? serializeMessage(message) : `${line}\n`;
}

/**
 * Builds every tool result (SPEC §4): the payload `{data, error, meta}` carried
 * twice, as `structuredContent` and as the one text item, with `isError` true
 * exactly when `error` is non-null.
 */
import type { CallToolResult, ImageContent } from '@modelcontextprotocol/server';
import { rememberJsonText } from '../messageLine.js';
import { errorEnvelope, okEnvelope, type Environment, type ErrorObject, type Meta } from '../../../protocol/index.js';

/** What a result's `meta` is made from. */
export interface MetaSource {
  /** The session the request named, once validated; null before that. */
  sessionId: string | null;
  /** The environment the page reported; null when the page was not asked. */
  environment: Environment | null;
  /** The caller's own correlation id, only when the caller gave a valid one. */
  requestId?: string | undefined;
  /** A stateless client's attachment handle, to pass back as `attachment`. */
  attachment?: string | undefined;
}

/** `meta` with the observation time of now. */
export function makeMeta(source: MetaSource, now: Date = new Date()): Meta {
  const meta: Meta = {
    sessionId: source.sessionId,
    environment: source.environment,
    observedAt: now.toISOString(),
  };
  if (source.requestId !== undefined) meta.requestId = source.requestId;
  if (source.attachment !== undefined) meta.attachment = source.attachment;
  return meta;
}

function toResult(
  payload: Record<string, unknown>,
  isError: boolean,
  extra: ImageContent[],
  text: string = JSON.stringify(payload),
): CallToolResult {
  // The stdio line writes structuredContent from this text (messageLine.ts); nothing changes the payload after.
  rememberJsonText(payload, text);
  return { content: [{ type: 'text', text }, ...extra], structuredContent: payload, isError };
}

/**
 * The text of `okEnvelope(data, meta)` from the data's JSON text, as
 * `JSON.stringify` of the envelope writes it (same keys, same order):
 * JSON.stringify of an object is its members' texts joined.
 */
function okEnvelopeText(dataJson: string, meta: Meta): string {
  return `{"data":${dataJson},"error":null,"meta":${JSON.stringify(meta)}}`;
}

/**
 * A successful tool result; `images` follow the text item (a snapshot's
 * picture). `dataJson`, when given, is `JSON.stringify(data)` already made.
 */
export function successResult(
  data: unknown,
  source: MetaSource,
  images: ImageContent[] = [],
  dataJson?: string,
): CallToolResult {
  const meta = makeMeta(source);
  const payload = okEnvelope(data, meta);
  return toResult(payload, false, images, dataJson === undefined ? undefined : okEnvelopeText(dataJson, meta));
}

/** A failed tool result. */
export function errorResult(error: ErrorObject, source: MetaSource): CallToolResult {
  return toResult(errorEnvelope(error, makeMeta(source)), true, []);
}

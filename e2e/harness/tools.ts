/**
 * Calling a tool and reading its envelope (SPEC §4): the same JSON as
 * `structuredContent` and as the one text content item; `isError` outside it.
 */
import { isDeepStrictEqual } from 'node:util';
import { Client, type CallToolResult, type RequestOptions } from '@modelcontextprotocol/client';
import type { AnyMcpClient } from './mcpClients.js';
import { z } from 'zod';
import { envelopeSchema, isWellFormedEnvelope, type Envelope } from '../../src/protocol/index.js';

/** What {@link callTool} returns. */
export interface ToolCall<T> {
  /** The payload: `data`, `error`, `meta`. */
  envelope: Envelope<T>;
  /** The authoritative status. */
  isError: boolean;
  /** The raw result (for the image item of a snapshot, progress checks …). */
  result: CallToolResult;
}

const AnyEnvelopeSchema = envelopeSchema(z.unknown());

/**
 * Calls `name` with `args` and returns the parsed envelope. Throws when the
 * result breaks SPEC §4 (no `structuredContent`, not exactly one text item,
 * the two differ, or the envelope is malformed), so every test that uses it
 * checks the envelope contract too. A protocol failure (unknown tool) rejects
 * as the SDK's `ProtocolError`. `T` is the caller's claim about `data`; it is not checked.
 */
export async function callTool<T = unknown>(
  client: AnyMcpClient,
  name: string,
  args: Record<string, unknown>,
  options?: RequestOptions,
): Promise<ToolCall<T>> {
  const params = { name, arguments: args };
  // The v2 client takes options second; the v1 client takes a result schema there.
  const result = (
    client instanceof Client
      ? await client.callTool(params, options)
      : await client.callTool(params, undefined, options)
  ) as CallToolResult;
  const fail = (why: string): never => {
    throw new Error(`SPEC §4: ${name} returned ${why}`);
  };
  if (result.structuredContent === undefined) fail('no structuredContent');
  const texts = result.content.filter((item) => item.type === 'text');
  if (texts.length !== 1) fail(`${texts.length} text content items instead of one`);
  let fromText: unknown;
  try {
    fromText = JSON.parse((texts[0] as { text: string }).text);
  } catch {
    fail('a text item that is not JSON');
  }
  if (!isDeepStrictEqual(fromText, result.structuredContent)) fail('a text item that differs from structuredContent');
  const parsed = AnyEnvelopeSchema.safeParse(result.structuredContent);
  if (!parsed.success) fail(`a malformed envelope: ${z.prettifyError(parsed.error)}`);
  const envelope = result.structuredContent as Envelope<T>;
  if (!isWellFormedEnvelope(envelope)) fail('an envelope where not exactly one of data and error is non-null');
  if ((envelope.error !== null) !== (result.isError === true))
    fail(`isError ${String(result.isError)} with error ${envelope.error === null ? 'null' : 'set'}`);
  return { envelope, isError: result.isError === true, result };
}

/** The bytes of a snapshot's one image content item; throws when it has none. */
export function imageBytes(call: ToolCall<unknown>): Buffer {
  const image = call.result.content.find((item) => item.type === 'image');
  if (!image || !('data' in image)) throw new Error('SPEC §3: the snapshot carries no image content item');
  return Buffer.from(image.data, 'base64');
}

import fc from 'fast-check';
import { PerRequestHTTPServerTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { answerJsonThrough, lightenPerRequestSend } from './perRequestSend.js';

type Mode = 'auto' | 'json' | 'sse';

/** `promise`'s outcome, or 'pending' after two turns of the event loop. */
async function outcome<T>(promise: Promise<T>): Promise<unknown> {
  const pending = new Promise((resolve) => setTimeout(() => setImmediate(() => resolve('pending')), 0));
  return Promise.race([
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ rejected: error instanceof Error ? error.message : String(error) }),
    ),
    pending,
  ]);
}

/** What an HTTP client sees of the answer: status, headers and the body read so far. */
async function seen(answer: unknown): Promise<unknown> {
  if (!isRecordWith(answer, 'value') || !(answer.value instanceof Response)) return answer;
  const response = answer.value;
  const chunks: string[] = [];
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  for (let i = 0; reader && i < 20; i += 1) {
    const read = await outcome(reader.read());
    if (!isRecordWith(read, 'value')) break;
    const { done, value } = read.value as ReadableStreamReadResult<Uint8Array>;
    if (done) {
      chunks.push('<end>');
      break;
    }
    chunks.push(decoder.decode(value));
  }
  await reader?.cancel().catch(() => undefined);
  return { status: response.status, headers: [...response.headers], body: chunks };
}

function isRecordWith<K extends string>(value: unknown, key: K): value is Record<K, unknown> {
  return typeof value === 'object' && value !== null && key in value;
}

/** A JSON answer handed to a writer, as the HTTP client receives it (`writeJsonAnswer`, webBridge.test.ts). */
function writtenAnswer(status: number, text: string): Response {
  return new Response(text, { status, headers: { 'content-type': 'application/json' } });
}

/**
 * One exchange: a request answered (or not) by the generated sends, through a
 * pristine or lightened transport; with `writer`, the lightened transport's
 * JSON answer goes to a writer that takes it (`accepts`) or declines it, and
 * what the writer took is seen as the answer.
 */
async function exchange(
  lightened: boolean,
  mode: Mode,
  requestId: number | string,
  steps: Step[],
  writer?: 'accepts' | 'declines',
): Promise<unknown[]> {
  const log: unknown[] = [];
  const transport = new PerRequestHTTPServerTransport({ classification: { era: 'modern' }, responseMode: mode });
  let written: Response | undefined;
  if (writer !== undefined) {
    answerJsonThrough(transport, (status, text) => {
      if (written !== undefined) throw new Error('written twice');
      if (writer === 'declines') return false;
      written = writtenAnswer(status, text);
      return true;
    });
  }
  if (lightened) lightenPerRequestSend(transport);
  transport.onmessage = () => undefined;
  transport.onerror = (error) => log.push(['onerror', error.message]);
  transport.onclose = () => log.push(['onclose']);
  await transport.start();
  const answer = transport.handleMessage({
    jsonrpc: '2.0',
    id: requestId,
    method: 'tools/call',
    params: { name: 'x' },
  });
  for (const step of steps) {
    if (step.close) await transport.close();
    else if (step.burst) {
      // Sent in one turn, as concurrent handlers may: only the first response is the answer.
      const sends = step.burst.map((message) => outcome(transport.send(message as JSONRPCMessage)));
      log.push(['burst', await Promise.all(sends)]);
    } else log.push(['send', await outcome(transport.send(step.message as JSONRPCMessage, step.options))]);
  }
  const settled = await outcome(answer);
  if (written === undefined) log.push(['answer', await seen(settled)]);
  else {
    // What the exchange settles with once the answer was written: a placeholder without a body.
    const placeholder = isRecordWith(settled, 'value') && settled.value instanceof Response ? settled.value : null;
    if (placeholder?.body !== null || placeholder.status !== 200) log.push(['placeholder', settled]);
    log.push(['answer', await seen({ value: written })]);
  }
  await new Promise((resolve) => setImmediate(resolve));
  return log;
}

interface Step {
  message?: unknown;
  options?: { relatedRequestId?: number | string };
  close?: boolean;
  burst?: unknown[];
}

function cyclic(): unknown {
  const value: Record<string, unknown> = { a: 1 };
  value['self'] = value;
  return value;
}
const protoKeyed = (inner: string) => JSON.parse(`{"__proto__":${inner},"x":1}`) as unknown;
const odd = fc.constantFrom<unknown>(undefined, null, 0, '', [], protoKeyed('{}'), Object.create(null), new Date(0));

describe('issue 15 the stateless HTTP answer is sent without zod only where the SDK sends it alike', () => {
  it('SPEC §13 a lightened per-request transport answers exactly as the SDK’s, over generated answers', async () => {
    const id = fc.oneof(
      { arbitrary: fc.constantFrom<unknown>(1, 'r'), weight: 6 },
      { arbitrary: fc.constantFrom<unknown>(2, '1', 1.5, null, undefined, 2 ** 60), weight: 1 },
    );
    const result = fc.oneof(
      {
        arbitrary: fc.record(
          {
            content: fc.constant([{ type: 'text', text: '{"data":"\\u2028"}' }]),
            // A cycle: Response.json throws, so a guard skipped would show as a rejected send.
            structuredContent: fc.oneof(
              { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 5 },
              { arbitrary: fc.constant(cyclic()), weight: 1 },
            ),
            isError: fc.boolean(),
            _meta: fc.oneof(fc.constant({ 'io.modelcontextprotocol/serverInfo': { name: 't', version: '1' } }), odd),
          },
          { requiredKeys: ['content'] },
        ),
        weight: 6,
      },
      { arbitrary: odd, weight: 1 },
    );
    const message = fc.oneof(
      { arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), id, result }), weight: 6 },
      {
        arbitrary: fc.record(
          { jsonrpc: fc.constantFrom<unknown>('2.0', '1.0'), id, result, extra: odd },
          { requiredKeys: ['id', 'result'] },
        ),
        weight: 1,
      },
      {
        arbitrary: fc.record({
          jsonrpc: fc.constant('2.0'),
          id,
          error: fc.constantFrom({ code: -32602, message: 'bad' }, { code: -32603, message: 'x' }),
        }),
        weight: 1,
      },
      {
        arbitrary: fc.record({
          jsonrpc: fc.constant('2.0'),
          method: fc.constant('notifications/progress'),
          params: fc.constant({ progressToken: 1, progress: 1 }),
        }),
        weight: 1,
      },
    );
    const step = fc.oneof(
      {
        arbitrary: fc.record(
          { message, options: fc.constantFrom(undefined, { relatedRequestId: 1 }, { relatedRequestId: 'r' }) },
          { requiredKeys: ['message'] },
        ),
        weight: 8,
      },
      { arbitrary: fc.constant({ close: true }), weight: 1 },
      { arbitrary: fc.record({ burst: fc.array(message, { minLength: 2, maxLength: 3 }) }), weight: 2 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Mode>('auto', 'json', 'sse'),
        fc.constantFrom(1, 'r'),
        fc.array(step, { minLength: 1, maxLength: 3 }),
        async (mode, requestId, steps) => {
          const sdk = await exchange(false, mode, requestId, steps as Step[]);
          const ours = await exchange(true, mode, requestId, steps as Step[]);
          const oursWritten = await exchange(true, mode, requestId, steps as Step[], 'accepts');
          const oursDeclined = await exchange(true, mode, requestId, steps as Step[], 'declines');
          expect(ours).toEqual(sdk);
          expect(oursWritten).toEqual(sdk);
          expect(oursDeclined).toEqual(sdk);
          return isDeepStrictEqual(ours, sdk);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('answers a tool result as JSON with status 200, and leaves another transport as it is', async () => {
    const log = await exchange(true, 'auto', 7, [{ message: { jsonrpc: '2.0', id: 7, result: { content: [] } } }]);
    expect(log).toContainEqual([
      'answer',
      {
        status: 200,
        headers: [['content-type', 'application/json']],
        body: ['{"jsonrpc":"2.0","id":7,"result":{"content":[]}}', '<end>'],
      },
    ]);
    const writes: unknown[] = [];
    const viaWriter = await exchange(
      true,
      'auto',
      7,
      [{ message: { jsonrpc: '2.0', id: 7, result: { content: [] } } }],
      'accepts',
    );
    expect(viaWriter).toContainEqual(['answer', expect.objectContaining({ status: 200 })]);
    // The SDK's own send never hands its answer to a writer.
    const pristine = new PerRequestHTTPServerTransport({ classification: { era: 'modern' } });
    answerJsonThrough(pristine, (status, text) => (writes.push([status, text]), true));
    pristine.onmessage = () => undefined;
    await pristine.start();
    const answer = pristine.handleMessage({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });
    await pristine.send({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    expect((await answer).headers.get('content-type')).toBe('application/json');
    expect(writes).toEqual([]);
    const other = { send: async () => undefined, start: async () => undefined, close: async () => undefined };
    const { send } = other;
    lightenPerRequestSend(other);
    expect(other.send).toBe(send);
  });
});

/**
 * messageLine writes the SDK's stdio line byte for byte (issue 15): a tool
 * result's structuredContent comes from its remembered JSON text instead of a
 * second walk, and everything else as `serializeMessage` writes it.
 */
import fc from 'fast-check';
import { serializeMessage, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { makeError } from '../../protocol/index.js';
import { messageLine, rememberJsonText } from './messageLine.js';
import { errorResult, successResult } from './tools/toolEnvelope.js';

/** Strings with quotes, backslashes, control characters, lone surrogates and astral characters. */
const awkward = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('"', '\\', '\u0000\u001f\n\t', '\ud800', '\udc00x', '😀', '\u2028\u2029', '</script>'),
);

/** JSON values with awkward strings, and an own `__proto__` key as JSON.parse makes one. */
const json: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(awkward, fc.oneof(awkward, fc.integer(), fc.double(), fc.constant(null)), { maxKeys: 5 }),
  fc.constant(JSON.parse('{"__proto__":{"x":1},"y":"\\u0000"}') as unknown),
);

/** Member values JSON.stringify leaves out, writes through toJSON, or writes plainly. */
const odd = fc.oneof(
  fc.constant(undefined),
  fc.constant(() => 1),
  fc.constant(Symbol('s')),
  fc.constant(new Date(0)),
  fc.constant({ toJSON: (key: string) => `key:${key}` }),
  fc.constant([new Date(0), undefined, () => 1]),
  json,
);

/** An object with these members, in a generated order. */
const inOrder = (members: Array<[string, fc.Arbitrary<unknown>]>) =>
  fc
    .tuple(...members.map(([key, value]) => value.map((v) => [key, v] as [string, unknown])))
    .chain((entries) => fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }))
    .map((entries) => Object.fromEntries(entries) as Record<string, unknown>);

/** A payload, its text remembered or not, sometimes a text of another value (never given by the product). */
const payload = fc.record({ value: json, remembered: fc.boolean() }).map(({ value, remembered }) => {
  const object = typeof value === 'object' && value !== null ? value : { data: value, error: null };
  if (remembered) rememberJsonText(object, JSON.stringify(object));
  return object;
});

const result = payload.chain((structured) =>
  inOrder([
    ['content', fc.constant([{ type: 'text', text: JSON.stringify(structured) }])],
    ['structuredContent', fc.constant(structured)],
    ['isError', fc.boolean()],
    ['_meta', odd],
    ['extra', odd],
  ]),
);

/** Not an object JSON.stringify writes member by member, though it carries a remembered payload. */
const notPlain = payload.chain((structured) =>
  fc.constantFrom<unknown>(
    Object.assign([1, 2], { structuredContent: structured }),
    Object.assign(Object.create({ inherited: 1 }) as object, { structuredContent: structured, isError: false }),
  ),
);

const message = inOrder([
  [
    'result',
    fc.oneof({ arbitrary: result, weight: 5 }, { arbitrary: odd, weight: 1 }, { arbitrary: notPlain, weight: 1 }),
  ],
  ['jsonrpc', fc.constant('2.0')],
  ['id', fc.oneof(fc.integer(), awkward)],
  ['other', odd],
]);

describe('issue 15 messageLine', () => {
  it('SPEC §11 writes the same bytes as serializeMessage for generated, mutated and hostile messages', () => {
    fc.assert(
      fc.property(message, (m) => {
        expect(messageLine(m as JSONRPCMessage)).toBe(serializeMessage(m as JSONRPCMessage));
      }),
      { numRuns: 3000 },
    );
  });

  it('SPEC §4 writes every result the envelope builds as serializeMessage does', () => {
    const meta = { sessionId: 's_1', environment: 'paper' as const, requestId: 'q"1' };
    const results = [
      successResult({ text: 'a"b\\c\u0000😀', n: [1, 2.5, null] }, meta),
      successResult({ x: 1 }, meta, [], '{"x":1}'),
      successResult(null, { sessionId: null, environment: null }, [
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ]),
      errorResult(makeError('invalid_input', 'Fix "this".'), meta),
    ];
    for (const [i, r] of results.entries()) {
      const m = { result: r, jsonrpc: '2.0', id: i } as JSONRPCMessage;
      expect(messageLine(m)).toBe(serializeMessage(m));
    }
  });

  it('leaves a message without a remembered payload to serializeMessage', () => {
    const m = { jsonrpc: '2.0', id: 1, method: 'ping' } as JSONRPCMessage;
    expect(messageLine(m)).toBe(serializeMessage(m));
  });
});

describe('issue 15 rememberJsonText keeps the text on the payload itself', () => {
  it('SPEC §11 a copy of a remembered payload, then changed, is written as changed (the text stays with the original)', () => {
    const original = { data: { n: 1 }, error: null };
    rememberJsonText(original, JSON.stringify(original));
    const copy = { ...original, data: { n: 2 } };
    const m = { result: { content: [], structuredContent: copy }, jsonrpc: '2.0', id: 1 } as unknown as JSONRPCMessage;
    expect(messageLine(m)).toBe(serializeMessage(m));
    expect(Object.getOwnPropertySymbols(copy)).toEqual([]);
    expect(Object.keys(original)).toEqual(['data', 'error']);
  });

  it('leaves a payload that cannot take a property as it is and writes its line in full', () => {
    const frozen = Object.freeze({ data: 1, error: null });
    expect(() => rememberJsonText(frozen, '{"data":"not this"}')).not.toThrow();
    const m = {
      result: { content: [], structuredContent: frozen },
      jsonrpc: '2.0',
      id: 2,
    } as unknown as JSONRPCMessage;
    expect(messageLine(m)).toBe(serializeMessage(m));
  });
});

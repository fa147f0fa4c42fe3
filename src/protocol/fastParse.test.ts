import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { mutate, mutationArbitrary, setOwn, type Mutation } from '../testing/mutations.js';
import { arbitraryFor, type JsonSchema } from '../testing/schemaArbitrary.js';
import { forwardedCallRequest } from '../testing/clusterMessages.js';
import { DECLINE, fastParser, fastSafeParse, withFastPath, type FastParser } from './fastParse.js';
import {
  BatchDataSchema,
  BrowserFrameSchema,
  CallReceiptSchema,
  DEFAULT_LIMITS,
  ErrorObjectSchema,
  ResponseFrameSchema,
  ServerFrameSchema,
  TOOLS,
  makeError,
  relayLimitsOf,
} from './index.js';
import { ClusterEventSchema, InboxMessageSchema } from './wire/clusterBus.js';

type Schema = zm.ZodMiniType;

/**
 * The schemas read on every call (issue 15 item 1): the server reads browser
 * frames, the page reads server frames and checks its response frames; then
 * every other tool input and answer.
 */
const HOT: Array<[string, Schema]> = [
  ['BrowserFrame', BrowserFrameSchema],
  ['ServerFrame', ServerFrameSchema],
  ['CallReceipt', CallReceiptSchema],
  ['BatchData', BatchDataSchema],
  // Cluster mode (SPEC §14): a forwarded call's request and outcome are read on every call.
  ['InboxMessage', InboxMessageSchema],
  ['ClusterEvent', ClusterEventSchema],
  ...TOOLS.map((tool): [string, Schema] => [`${tool.name} input`, tool.input]),
];
const OTHERS: Array<[string, Schema]> = [
  // Checked by the page before it sends; generated ones often lack `data` (zod's `unknown`), which zod decides.
  ['ResponseFrame', ResponseFrameSchema],
  ['ErrorObject', ErrorObjectSchema],
  ...TOOLS.map((tool): [string, Schema] => [`${tool.name} data`, tool.data]),
];

const RECEIPT = {
  operationId: 'gen-a_k51cYR-1',
  origin: 'mcp',
  controlId: 'chart.getVisibleRange',
  target: { scope: 'chart', chartId: 'btc-main' },
  mutation: false,
  revisionsBefore: {},
  revisionsAfter: { viewport: 3 },
  durationMs: 2,
  result: { symbol: 'BTCUSDT', interval: '1m', startTime: 1796448000, endTime: 1796455140 },
};

class Instance {
  t = 'ping';
  n = 1;
}

/** Values no JSON text yields, which in-process callers could still pass (made fresh: mutations write into them). */
const EXOTIC: Array<() => unknown> = [
  () => undefined,
  () => NaN,
  () => Infinity,
  () => -Infinity,
  () => -0,
  () => 2 ** 53,
  () => new Date(0),
  () => new Instance(),
  () => Object.assign(Object.create(null) as object, { scope: 'session' }),
  () => Object.create({ scope: 'session' }) as unknown,
  () => [, 1],
  () => Object.assign([], { scope: 'session' }),
  () => Symbol('s'),
  () => () => 1,
  () => 10n,
  () => 'x'.repeat(63),
  () => 'x'.repeat(64),
  () => 'x'.repeat(65),
  () => 'x'.repeat(129),
  () => '\u{1f600}'.repeat(32),
  () => '\u{1f600}'.repeat(33),
  () => '\u{1f600}'.repeat(64),
  () => '\u{1f600}'.repeat(65),
  () => '\ud800',
  () => JSON.parse('{"__proto__":{"scope":"session"}}') as unknown,
  () => ({ [Symbol('k')]: 1 }),
];

const exoticMutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constant('wrongType' as const),
  at: fc.nat(),
  value: fc.constantFrom(...EXOTIC).map((make) => make()),
});

/** A strict object key at a random place, set as an own property as JSON.parse does (`__proto__` too). */
const plans = fc.array(fc.oneof(mutationArbitrary, exoticMutation), { maxLength: 3 });

/** Key order, breadth-first, without recursion (a mutation may nest 50,000 levels under an `unknown`). */
function keyOrder(value: unknown): string {
  const out: string[] = [];
  const queue: unknown[] = [value];
  for (let i = 0; i < queue.length && i < 10_000; i++) {
    const node = queue[i];
    if (node === null || typeof node !== 'object') continue;
    const keys = Object.keys(node);
    out.push(keys.join(','));
    for (const key of keys) queue.push((node as Record<string, unknown>)[key]);
  }
  return out.join('|');
}

/**
 * Fails when the fast path answers an input zod rejects, or answers with a
 * value other than zod's (deep-equal, same key order). Returns whether it answered.
 */
function agree(schema: Schema, parser: FastParser, input: unknown): boolean {
  const fast = parser(input);
  if (fast === DECLINE) return false;
  const zod = zm.safeParse(schema, input);
  // Short messages: a failing case may hold a 300 KB string or 50,000 levels, too much for a diff.
  if (!zod.success) throw new Error(`the fast path accepted what zod rejects: ${zod.error.issues[0]?.code}`);
  if (!isDeepStrictEqual(fast, zod.data)) throw new Error('the fast path answered another value than zod');
  if (keyOrder(fast) !== keyOrder(zod.data)) throw new Error('the fast path answered another key order than zod');
  return true;
}

function validValues(schema: Schema): fc.Arbitrary<unknown> {
  return arbitraryFor(z.toJSONSchema(schema, { io: 'input' }) as JsonSchema);
}

describe('fast paths (issue 15 item 1) never accept what zod rejects, and answer with what zod returns', () => {
  it.each([...HOT, ...OTHERS])(
    'SPEC §4 §9 %s: valid and mutated inputs (dropped, added and prototype keys, wrong types, boundaries, long and astral strings, deep nesting, exotic values)',
    (_name, schema) => {
      const parser = fastParser(schema);
      fc.assert(
        fc.property(validValues(schema), plans, (value, plan) => {
          agree(schema, parser, value);
          agree(schema, parser, mutate(value, plan));
        }),
        { numRuns: 600, endOnFailure: true },
      );
    },
  );

  it.each(HOT)('SPEC §4 §9 %s: the fast path answers most valid inputs', (_name, schema) => {
    const parser = fastParser(schema);
    const values = fc.sample(validValues(schema), 300);
    const answered = values.filter((value) => agree(schema, parser, value)).length;
    expect(answered).toBeGreaterThan(values.length / 2);
  });

  it('SPEC §4 §9 the frames and inputs of a call are answered by the fast path', () => {
    const frame = { t: 'response', id: 'r_1', environment: 'paper', outcome: { ok: true, data: RECEIPT } };
    const failed = {
      t: 'response',
      id: 'r_2',
      environment: null,
      outcome: { ok: false, error: makeError('internal_error', 'x') },
    };
    const call = {
      sessionId: 's_1',
      target: { scope: 'chart', chartId: 'btc-main' },
      controlId: 'chart.getVisibleRange',
    };
    expect(agree(BrowserFrameSchema, fastParser(BrowserFrameSchema), frame)).toBe(true);
    expect(agree(BrowserFrameSchema, fastParser(BrowserFrameSchema), failed)).toBe(true);
    expect(agree(ResponseFrameSchema, fastParser(ResponseFrameSchema), frame)).toBe(true);
    expect(agree(ResponseFrameSchema, fastParser(ResponseFrameSchema), failed)).toBe(true);
    const request = {
      t: 'request',
      id: 'r_1',
      sessionId: 's_1',
      attachment: { attachmentId: 'att_1', namespace: 'ns_1', clientName: 'client' },
      adapter: { maxAccess: 'trade', allowControls: null },
      limits: relayLimitsOf(DEFAULT_LIMITS),
      deadlineMs: 30_000,
      op: {
        kind: 'call',
        call: {
          target: call.target,
          controlId: call.controlId,
          args: [],
          operationId: 'gen-1',
          callerOperationId: false,
        },
      },
    };
    expect(agree(ServerFrameSchema, fastParser(ServerFrameSchema), request)).toBe(true);
    expect(agree(ServerFrameSchema, fastParser(ServerFrameSchema), { t: 'ping', n: 1 })).toBe(true);
    expect(agree(CallReceiptSchema, fastParser(CallReceiptSchema), RECEIPT)).toBe(true);
    const input = TOOLS.find((tool) => tool.name === 'tradescript_call')!.input;
    expect(agree(input, fastParser(input), call)).toBe(true);
    // The default is filled in as zod fills it: the schema's own value (here one array, which `.check` froze into the def).
    const defaulted = fastParser(input)(call) as { args: unknown[] };
    expect(defaulted.args).toEqual([]);
    expect(defaulted.args).toBe((zm.parse(input, call) as { args: unknown[] }).args);
    // The result is the page's own value (unknown), the receipt around it a new object.
    const parsed = fastParser(CallReceiptSchema)(RECEIPT) as typeof RECEIPT;
    expect(parsed).not.toBe(RECEIPT);
    expect(parsed.result).toBe(RECEIPT.result);
  });

  it("SPEC §14 a forwarded call's request and outcome are answered by the fast path", () => {
    const request = forwardedCallRequest('n_8sc_gYkMYyb4.5l', 'n_8sc_gYkMYyb4', ['bench'], 29_997);
    const outcome = {
      t: 'outcome',
      id: 'n_8sc_gYkMYyb4.5l',
      outcome: { ok: true, data: RECEIPT, environment: 'paper' },
    };
    const failed = {
      t: 'outcome',
      id: 'n_8sc_gYkMYyb4.5m',
      outcome: { ok: false, error: makeError('uncertain_execution', 'x'), environment: null },
    };
    const inbox = fastParser(InboxMessageSchema);
    for (const message of [request, outcome, failed]) expect(agree(InboxMessageSchema, inbox, message)).toBe(true);
    const event = { t: 'sessions', from: 'n_8sc_gYkMYyb4', principal: 'desk-1', sessionId: null };
    expect(agree(ClusterEventSchema, fastParser(ClusterEventSchema), event)).toBe(true);
  });

  it('SPEC §4 unknown and prototype keys in a strict object or a record are left to zod', () => {
    const receipt = fastParser(CallReceiptSchema);
    for (const key of ['__proto__', 'constructor', 'toString', 'extra']) {
      const withKey = { ...RECEIPT };
      setOwn(withKey, key, 1);
      expect(receipt(withKey)).toBe(DECLINE);
      const revisions = { ...RECEIPT, revisionsAfter: { viewport: 3 } };
      setOwn(revisions.revisionsAfter, key, 1);
      expect(agree(CallReceiptSchema, receipt, revisions)).toBe(key !== '__proto__');
    }
  });

  it('a check, format or transform it does not model makes that part decline, so zod decides', () => {
    const cases: Array<[Schema, unknown]> = [
      [zm.string().check(zm.refine((s) => s !== 'no')), 'no'],
      [zm.email(), 'not an email'],
      [
        zm.pipe(
          zm.string(),
          zm.transform((s) => s.length),
        ),
        'abc',
      ],
      [zm.strictObject({ a: zm.string().check(zm.refine((s) => s !== 'no')) }), { a: 'no' }],
      [zm.looseObject({ a: zm.string() }), { a: 'x', b: 1 }],
      // zod counts code points: 2 of them in 4 UTF-16 units fit a maximum of 2, 1 in 2 units misses a minimum of 2.
      [zm.string().check(zm.maxLength(2)), '\u{1f600}\u{1f600}'],
      [zm.string().check(zm.minLength(2)), '\u{1f600}'],
    ];
    for (const [schema, input] of cases) expect(fastParser(schema)(input)).toBe(DECLINE);
  });

  it('the agreement check itself fails on a fast path that accepts what zod rejects', () => {
    expect(() => agree(CallReceiptSchema, () => ({}), { not: 'a receipt' })).toThrow(/zod rejects/);
    expect(() => agree(CallReceiptSchema, (v) => ({ ...(v as object), extra: 1 }), RECEIPT)).toThrow();
  });
});

type SafeResult = { success: boolean; data?: unknown; error?: { issues: unknown } };

/** Checks that each of `parsers` answers what `schema` alone answers on valid and mutated inputs. */
function answersAsZod(schema: Schema, parsers: Array<(input: unknown) => SafeResult>): void {
  fc.assert(
    fc.property(validValues(schema), plans, (value, plan) => {
      for (const input of [value, mutate(value, plan)]) {
        const expected = zm.safeParse(schema, input);
        for (const got of parsers.map((parse) => parse(input))) {
          expect(got.success).toBe(expected.success);
          if (expected.success) expect(got.data).toStrictEqual(expected.data);
          else expect(got.error?.issues).toStrictEqual(expected.error.issues);
        }
      }
    }),
    { numRuns: 300, endOnFailure: true },
  );
}

describe('withFastPath: what callers see is what the schema alone returns', () => {
  it.each(HOT)('SPEC §4 §9 %s: the same success, data and issues on valid and mutated inputs', (_name, schema) => {
    const fast = withFastPath(schema);
    answersAsZod(schema, [(input) => zm.safeParse(fast, input), (input) => fast.safeParse(input)]);
  });
});

describe('fastSafeParse: the page calls it as it would call zod, and sees what zod alone returns', () => {
  const PAGE: Array<[string, Schema]> = [
    ['ServerFrame', ServerFrameSchema],
    ['ResponseFrame', ResponseFrameSchema],
  ];
  it.each(PAGE)('SPEC §4 §9 %s: the same success, data and issues on valid and mutated inputs', (_name, schema) => {
    answersAsZod(schema, [fastSafeParse(schema) as (input: unknown) => SafeResult]);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactString } from '../dispatch/redact.js';
import { projectorFor, quotesChannel, referenceProjectors, tradingEventsChannel } from './builtins.js';
import { utf8Length } from '../../protocol/index.js';
import { DROP_INVALID, DROP_OVERSIZED, eventBounds, type EventBounds, type Projector } from './projection.js';

/** Strings that stress redaction: whitespace of every kind, long runs, token-like text. */
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', ' ', 'a  b', ' lead', 'trail ', 'tab\there', 'nl\n', '\u00a0nb', 'ok text'),
  fc.string({ unit: fc.constantFrom('a', ' ', '\t', 'Z', '9', '\u2028', 'é', '😀'), maxLength: 40 }),
  fc.integer({ min: 990, max: 1010 }).map((n) => 'k'.repeat(n)),
  fc.integer({ min: 990, max: 1010 }).map((n) => 'word '.repeat(Math.ceil(n / 5)).slice(0, n)),
  fc.string({ unit: fc.constantFrom('\u2028', '"', '\\', '\u0001', '😀', 'x'), maxLength: 300 }),
);
const decimal = fc.oneof(
  fc.constantFrom('1', '-0.5', '64250.10', '1.', '.5', '1e5', '0x10', ' 1', '1.1234567890123', '123456789012345678'),
  fc.tuple(fc.integer({ min: -1e6, max: 1e6 }), fc.nat(999)).map(([a, b]) => `${a}.${b}`),
  fc.string({ unit: fc.constantFrom('0', '1', '9', '.', '-'), minLength: 1, maxLength: 22 }),
);
const odd = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.boolean(),
  fc.constant([]),
  fc.object(),
);

/** A record that is often a valid event, with any key sometimes missing, wrong or extra. */
function nearly(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const loose = Object.fromEntries(
    Object.entries(fields).map(([k, a]) => [k, fc.oneof({ weight: 6, arbitrary: a }, odd)]),
  );
  const record = fc.record(loose, { requiredKeys: [] });
  const extra = fc.tuple(record, fc.string({ maxLength: 6 }), odd).map(([r, k, v]) => ({ ...r, [k]: v }));
  const inherited = record.map((r) => Object.assign(Object.create({ inherited: 1 }) as object, r));
  const protoKey = record.map((r) => Object.assign(JSON.parse('{"__proto__":1}') as object, r));
  return fc.oneof(
    { weight: 8, arbitrary: record },
    extra,
    inherited,
    protoKey,
    record.map((r) => Object.create(r) as unknown),
    fc.anything(),
  );
}

const quote = nearly({ symbol: text, bid: decimal, ask: decimal, last: decimal, time: text });
const tradingType = fc.constantFrom('order.accepted', 'order.filled', 'tradingLine.removed', 'order.teleported', '');
const tradingEvent = nearly({
  type: tradingType,
  time: text,
  accountId: text,
  orderId: text,
  clientOrderId: text,
  symbol: text,
  side: fc.constantFrom('buy', 'sell', 'hold'),
  quantity: decimal,
  price: decimal,
  status: fc.oneof(text, fc.string({ minLength: 60, maxLength: 70 })),
  chartId: text,
  lineId: text,
  message: fc.oneof(text, fc.constant(null), fc.string({ minLength: 995, maxLength: 1005 })),
});

const bounds: fc.Arbitrary<EventBounds> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(eventBounds()) },
  fc.record({
    depth: fc.integer({ min: -1, max: 3 }),
    stringLength: fc.integer({ min: 0, max: 1200 }),
    maxBytes: fc.integer({ min: 1, max: 3000 }),
  }),
);

/** Often moves the size cap to within a few bytes of the payload's real size, where a wrong estimate shows. */
const nearSize = fc.option(fc.integer({ min: -40, max: 40 }), { freq: 2 });

function sizedBounds(raw: unknown, b: EventBounds, offset: number | null, reference: Projector): EventBounds {
  if (offset === null) return b;
  const payload = reference(raw, eventBounds());
  if (typeof payload === 'symbol') return b;
  return { ...b, maxBytes: Math.max(1, utf8Length(JSON.stringify(payload)) + offset) };
}

const named = (value: unknown) =>
  value === DROP_INVALID ? 'DROP_INVALID' : value === DROP_OVERSIZED ? 'DROP_OVERSIZED' : value;

describe('SPEC §7 built-in fast projections equal the schema projection', () => {
  it('data.quotes: the fast path returns exactly what parse + limits + redaction return', () => {
    const fast = projectorFor(quotesChannel);
    fc.assert(
      fc.property(quote, bounds, nearSize, (raw, given, offset) => {
        const b = sizedBounds(raw, given, offset, referenceProjectors.quotes);
        expect(named(fast(raw, b))).toStrictEqual(named(referenceProjectors.quotes(raw, b)));
      }),
      { numRuns: 10_000 },
    );
  });

  it('trading.events: the fast path returns exactly what parse + limits + redaction return', () => {
    const fast = projectorFor(tradingEventsChannel);
    fc.assert(
      fc.property(tradingEvent, bounds, nearSize, (raw, given, offset) => {
        const b = sizedBounds(raw, given, offset, referenceProjectors.tradingEvents);
        expect(named(fast(raw, b))).toStrictEqual(named(referenceProjectors.tradingEvents(raw, b)));
      }),
      { numRuns: 10_000 },
    );
  });

  it('the generators reach every outcome (valid, invalid, oversized), so the equality is not vacuous', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(fc.oneof(quote, tradingEvent), bounds, (raw, b) => {
        for (const result of [referenceProjectors.quotes(raw, b), referenceProjectors.tradingEvents(raw, b)]) {
          seen.add(typeof named(result) === 'string' ? String(named(result)) : 'payload');
        }
      }),
      { numRuns: 5_000, seed: 7 },
    );
    expect([...seen].sort()).toEqual(['DROP_INVALID', 'DROP_OVERSIZED', 'payload']);
  });

  it('skipping redaction for already-normal strings changes nothing', () => {
    const fast = projectorFor(quotesChannel);
    fc.assert(
      fc.property(text, (symbol) => {
        const raw = { symbol, bid: '1', ask: '2', last: '1.5', time: 't' };
        const projected = fast(raw, eventBounds());
        expect(projected).toStrictEqual({ ...raw, symbol: redactString(symbol) });
      }),
    );
  });
});

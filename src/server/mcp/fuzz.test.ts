/**
 * Fuzzing the MCP front (SPEC §3, §4, §6): thousands of arguments generated
 * from each tool's input schema, valid and mutated (wrong types, unknown and
 * prototype keys, boundary numbers, hostile unicode, huge strings, deep
 * nesting, flooded arrays, dropped fields), through a real SDK `Client` into
 * the real front. Most cases run against the in-memory hub; a share runs
 * through the whole stack (real hub, relay, bridge runtime and host SDK).
 * Every call is bounded; every answer is a well-formed envelope; every
 * `invalid_input` follows each diagnostics rule and echoes nothing submitted.
 */
import { ProtocolError as McpError, type Client } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DEFAULT_LIMITS,
  ERROR_RETRY,
  jsonByteLength,
  REPORTED_LIMITS,
  TOOLS,
  type Envelope,
  type Limits,
  type ToolName,
} from '../../protocol/index.js';
import { checkDiagnostics, checkEnvelope, schemaFieldNames } from '../../testing/envelopeChecks.js';
import { CHART, SESSION, startFullStack, type FullStack } from '../../testing/fullStack.js';
import { mutate, mutationArbitrary, type Mutation } from '../../testing/mutations.js';
import { arbitraryFor, freeJson, MARKER_PATTERN, type JsonSchema } from '../../testing/schemaArbitrary.js';
import { within } from '../../testing/waitUntil.js';
import type { Hub } from '../hub/hub.js';
import { connectClient, type Harness } from '../testing/testHarness.js';

/** The published input schema of each tool, as the server validates it. */
const SCHEMAS = Object.fromEntries(
  TOOLS.map((tool) => [tool.name, z.toJSONSchema(tool.input, { io: 'input' }) as JsonSchema]),
) as Record<ToolName, JsonSchema>;
const TOOL_FIELDS = schemaFieldNames(Object.values(SCHEMAS));
/** Codes the server's own input checks produce. */
const LOCAL_INPUT_CODES = new Set(['invalid_input', 'limit_exceeded', 'request_too_large']);
/** A distinctive submitted number (a boundary value of the mutations). */
const NUMBER_MARKER = '73519';
const CALL_TIMEOUT_MS = 15_000;

const stats = {
  cases: 0,
  fullStack: 0,
  codes: new Map<string, number>(),
  stackCodes: new Map<string, number>(),
  protocolErrors: 0,
};
const count = (map: Map<string, number>, code: string) => map.set(code, (map.get(code) ?? 0) + 1);
afterAll(() => {
  // The counts go to stderr: nothing under src/ writes stdout (the stdio MCP channel).
  process.stderr.write(
    `fuzz: ${stats.cases} cases (${stats.fullStack} through the full stack), ${stats.protocolErrors} JSON-RPC errors; codes ${JSON.stringify(Object.fromEntries(stats.codes))}; through the stack ${JSON.stringify(Object.fromEntries(stats.stackCodes))}\n`,
  );
});

/** The JSON size the server measures, or null when too deep to serialize (then it is a depth breach). */
function requestSize(args: unknown): number | null {
  try {
    return jsonByteLength(args);
  } catch {
    return null;
  }
}

/** What one case must satisfy beyond the envelope itself. */
interface Expectations {
  /** The case is valid against the schema and within every limit. */
  valid: boolean;
  limits: Limits;
  /** Field names diagnostics may use (tool schemas, plus controls' and channels' own in the full stack). */
  fieldNames: ReadonlySet<string>;
}

function leakedIn(text: string): boolean {
  return MARKER_PATTERN.test(text) || text.includes(NUMBER_MARKER);
}

/**
 * The arguments as the front receives them. The SDK parses `arguments` as a
 * zod record, and zod skips a `__proto__` key there (so it never becomes a
 * prototype): a top-level `__proto__` is gone before our checks run. Nested
 * ones reach them and are refused.
 */
function asReceived(args: unknown): unknown {
  if (args === null || typeof args !== 'object' || Array.isArray(args) || !Object.hasOwn(args, '__proto__'))
    return args;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(args)) if (key !== '__proto__') copy[key] = (args as Record<string, unknown>)[key];
  return copy;
}

/** Every SPEC §4/§6 rule one answer must follow; returns the breaches. */
function judge(envelope: Envelope<unknown>, args: unknown, rules: Expectations): string[] {
  const problems: string[] = [];
  const error = envelope.error;
  const size = requestSize(asReceived(args));
  const tooLarge = size !== null && size > rules.limits.requestBytes;
  if (tooLarge !== (error?.code === 'request_too_large'))
    problems.push(`request_too_large is ${error?.code} at ${size} bytes`);
  if (!error) return problems;
  if (rules.valid && LOCAL_INPUT_CODES.has(error.code)) problems.push(`a valid request was refused: ${error.code}`);
  const own = { message: error.message, validation_errors: error.validation_errors, broker: error.broker_message };
  if (leakedIn(JSON.stringify(own))) problems.push(`a submitted value in the error: ${JSON.stringify(own)}`);
  if (LOCAL_INPUT_CODES.has(error.code)) {
    if (leakedIn(JSON.stringify(error))) problems.push('a submitted value in a local refusal');
    if (error.retry !== ERROR_RETRY[error.code]) problems.push(`retry ${error.retry} on ${error.code}`);
  }
  if (error.code === 'invalid_input')
    problems.push(...checkDiagnostics(error.validation_errors, { fieldNames: rules.fieldNames }));
  else if (error.validation_errors.length > 0) problems.push(`validation_errors on ${error.code}`);
  if (error.code === 'limit_exceeded') {
    const limit = error.details?.limit;
    if (!limit || !REPORTED_LIMITS.includes(limit)) problems.push(`limit_exceeded names no limit`);
    else if (error.details?.max !== rules.limits[limit]) problems.push(`limit ${limit} max ${error.details?.max}`);
  }
  if (error.code === 'request_too_large' && error.details !== null) problems.push('request_too_large with details');
  return problems;
}

/** Calls one tool, bounded, and returns the breaches (empty when the answer follows every rule). */
async function fuzzOnce(
  client: Client,
  name: ToolName,
  args: unknown,
  rules: Expectations,
  codes: Map<string, number> = stats.codes,
): Promise<string[]> {
  stats.cases += 1;
  let result: unknown;
  try {
    result = await within(
      client.callTool({ name, arguments: args as Record<string, unknown> }, { timeout: CALL_TIMEOUT_MS }),
      CALL_TIMEOUT_MS + 1_000,
      `${name}`,
    );
  } catch (error) {
    stats.protocolErrors += 1;
    const isObject = args !== null && typeof args === 'object' && !Array.isArray(args);
    if (!(error instanceof McpError) || isObject) return [`a thrown ${String(error)} instead of an envelope`];
    return leakedIn(error.message) ? ['a submitted value in a protocol error'] : [];
  }
  const checked = checkEnvelope(result);
  if (!checked.ok) return checked.problems;
  count(codes, checked.envelope.error?.code ?? 'ok');
  return judge(checked.envelope, args, rules);
}

function failWith(problems: string[], name: ToolName, args: unknown): void {
  if (problems.length === 0) return;
  let shown: string;
  try {
    shown = JSON.stringify(args).slice(0, 600);
  } catch {
    shown = '(too deep to show)';
  }
  throw new Error(`${name}: ${problems.join('; ')}\nargs: ${shown}`);
}

const FRONT_EXPECT: Omit<Expectations, 'valid'> = { limits: { ...DEFAULT_LIMITS }, fieldNames: TOOL_FIELDS };
const plan = fc.array(mutationArbitrary, { minLength: 1, maxLength: 3 });

describe('SPEC §4 §6 fuzzing the MCP front (in-memory hub)', () => {
  let harness: Harness;
  const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
  beforeAll(async () => {
    harness = await connectClient();
  });
  afterAll(async () => {
    await harness.close();
  });

  for (const tool of TOOLS) {
    it(`SPEC §4 ${tool.name}: arguments valid against its schema are never refused by the server's own checks`, async () => {
      // Limits are code, not schema bounds (SPEC §6): a valid poll stays within eventsPerPoll here; the limits have their own test.
      const valid = arbitraryFor(SCHEMAS[tool.name], {
        fields: { ...(tool.name === 'tradescript_subscribe' ? { limit: fc.integer({ min: 1, max: 100 }) } : {}) },
      });
      await fc.assert(
        fc.asyncProperty(valid, async (args) => {
          failWith(await fuzzOnce(harness.client, tool.name, args, { ...FRONT_EXPECT, valid: true }), tool.name, args);
        }),
        { numRuns: 150 },
      );
    });

    it(`SPEC §4 §6 ${tool.name}: mutated arguments always get a well-formed envelope, bounded diagnostics, no echo`, async () => {
      const valid = arbitraryFor(SCHEMAS[tool.name]);
      await fc.assert(
        fc.asyncProperty(valid, plan, async (args, mutations: Mutation[]) => {
          const mutated = mutate(args, mutations);
          failWith(
            await fuzzOnce(harness.client, tool.name, mutated, { ...FRONT_EXPECT, valid: false }),
            tool.name,
            mutated,
          );
        }),
        { numRuns: 450 },
      );
    });
  }

  it('SPEC §4 arguments that are not an object are a JSON-RPC error that echoes nothing', async () => {
    const notObject = fc.oneof(
      fc.constant(null),
      freeJson.filter((v) => v === null || typeof v !== 'object' || Array.isArray(v)),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TOOLS.map((t) => t.name)), notObject, async (name, args) => {
        failWith(await fuzzOnce(harness.client, name, args, { ...FRONT_EXPECT, valid: false }), name, args);
      }),
      { numRuns: 60 },
    );
  });

  it('SPEC §4 no argument, however hostile, changes Object.prototype', () => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

/** One request of `n` units of a count limit (or of depth, or string length). */
function probe(limit: ProbedLimit, n: number): { name: ToolName; args: Record<string, unknown> } {
  const target = { scope: 'session' };
  const call = { target, controlId: 'a.b', args: [] as unknown[] };
  switch (limit) {
    case 'batchCalls':
      return { name: 'tradescript_batch', args: { sessionId: 's-1', calls: Array.from({ length: n }, () => call) } };
    case 'callArgs':
      return {
        name: 'tradescript_call',
        args: { sessionId: 's-1', ...call, args: Array.from({ length: n }, (_, i) => i) },
      };
    case 'bindingsPerSubscription': {
      const bindings = Array.from({ length: n }, (_, i) => ({ channelId: 'data.quotes', bindingId: `b${i}` }));
      return { name: 'tradescript_subscribe', args: { action: 'start', sessionId: 's-1', target, bindings } };
    }
    case 'eventsPerPoll':
      return { name: 'tradescript_subscribe', args: { action: 'poll', subscriptionId: 'sub-1', limit: n } };
    case 'jsonDepth': {
      // The arguments object is depth 1 and `args` depth 2; each array around the value adds one.
      let value: unknown = 'v';
      for (let i = 2; i < n; i += 1) value = [value];
      return { name: 'tradescript_call', args: { sessionId: 's-1', ...call, args: [value] } };
    }
    case 'stringLength':
      return { name: 'tradescript_call', args: { sessionId: 's-1', ...call, args: ['s'.repeat(n)] } };
    case 'requestBytes': {
      const base = { sessionId: 's-1', ...call, args: [''] };
      return { name: 'tradescript_call', args: { ...base, args: ['r'.repeat(Math.max(0, n - jsonByteLength(base)))] } };
    }
  }
}

type ProbedLimit = Extract<
  keyof Limits,
  | 'batchCalls'
  | 'callArgs'
  | 'bindingsPerSubscription'
  | 'eventsPerPoll'
  | 'jsonDepth'
  | 'stringLength'
  | 'requestBytes'
>;

/** The lowest value each probe can be lowered to and still leave a well-formed request (keys are strings too). */
const PROBES: Record<ProbedLimit, { min: number }> = {
  batchCalls: { min: 1 },
  callArgs: { min: 1 },
  bindingsPerSubscription: { min: 1 },
  eventsPerPoll: { min: 1 },
  jsonDepth: { min: 3 },
  stringLength: { min: 10 },
  requestBytes: { min: 128 },
};

describe('SPEC §6 every limit holds exactly at its boundary, at its default and lowered', () => {
  const harnesses = new Map<string, Harness>();
  afterAll(async () => {
    for (const harness of harnesses.values()) await harness.close();
  });
  /** One front per distinct configuration (connecting is the expensive part). */
  async function frontWith(limits: Limits): Promise<Harness> {
    const key = JSON.stringify(limits);
    const known = harnesses.get(key);
    if (known) return known;
    const harness = await connectClient({ config: { limits } });
    harnesses.set(key, harness);
    return harness;
  }

  it('SPEC §6 n ≤ max passes the check; n = max + 1 is limit_exceeded (or request_too_large) naming the limit and its max', async () => {
    const limitArb = fc.constantFrom(...(Object.keys(PROBES) as ProbedLimit[])).chain((limit) =>
      fc.record({
        limit: fc.constant(limit),
        max: fc.constantFrom(DEFAULT_LIMITS[limit], PROBES[limit].min, PROBES[limit].min + 1, PROBES[limit].min + 7),
        delta: fc.constantFrom(-1, 0, 1),
      }),
    );
    await fc.assert(
      fc.asyncProperty(limitArb, async ({ limit, max, delta }) => {
        const n = Math.max(PROBES[limit].min, max + delta);
        const limits = { ...DEFAULT_LIMITS, [limit]: max };
        const harness = await frontWith(limits);
        const { name, args } = probe(limit, n);
        const result = await harness.client.callTool({ name, arguments: args });
        const problems = await fuzzOnce(harness.client, name, args, { limits, fieldNames: TOOL_FIELDS, valid: false });
        const error = (result.structuredContent as Envelope<unknown>).error;
        if (n <= max && (error?.code === 'request_too_large' || error?.details?.limit === limit)) {
          problems.push(`${limit}=${n} refused at max ${max}`);
        }
        if (n > max) {
          const expected =
            limit === 'requestBytes'
              ? { code: 'request_too_large', details: null }
              : { code: 'limit_exceeded', details: { limit, max } };
          if (error?.code !== expected.code || JSON.stringify(error.details) !== JSON.stringify(expected.details)) {
            problems.push(`${limit}=${n} over max ${max} gave ${JSON.stringify(error)}`);
          }
        }
        failWith(problems, name, { limit, max, n });
      }),
      { numRuns: 120 },
    );
  }, 60_000);
});

/** The full stack's own names: control argument and channel option schemas (paths reach into them). */
function stackFieldNames(stack: FullStack): Set<string> {
  const catalog = stack.tab.host.catalog();
  const names = new Set(TOOL_FIELDS);
  schemaFieldNames(
    catalog.controls.map((c) => c.args.map((a) => a.schema)),
    names,
  );
  schemaFieldNames(
    catalog.channels.map((c) => c.optionsContract.schema),
    names,
  );
  return names;
}

describe('SPEC §4 §5 fuzzing through the whole stack: real hub, relay, bridge runtime and host SDK', () => {
  let stack: FullStack;
  let clients: { write: Harness<Hub>; trade: Harness<Hub> };
  let fieldNames: Set<string>;
  beforeAll(async () => {
    stack = await startFullStack();
    clients = {
      write: await stack.connect(),
      trade: await stack.connect({ config: { adapter: { maxAccess: 'trade', allowControls: null } } }),
    };
    fieldNames = stackFieldNames(stack);
  });
  afterAll(async () => {
    await stack.close();
  });

  /** Steers generated fields towards what the tab has, so most cases reach the host SDK. */
  function steered(): Record<string, fc.Arbitrary<unknown>> {
    const controls = stack.tab.host.catalog().controls.map((c) => c.controlId);
    const mostly = <T>(real: fc.Arbitrary<T>, other: fc.Arbitrary<unknown>) =>
      fc.oneof({ weight: 4, arbitrary: real }, { weight: 1, arbitrary: other });
    return {
      sessionId: mostly(fc.constant(stack.sessionId), fc.constant('QZX7XZQ')),
      target: mostly(fc.constantFrom(CHART, SESSION), fc.constantFrom({ scope: 'widget', widgetId: 'QZX8XZQ' })),
      controlId: mostly(fc.constantFrom(...controls), fc.constant('chart.QZX9XZQ')),
      channelId: mostly(fc.constantFrom('data.quotes', 'trading.events'), fc.constant('QZX6XZQ')),
      args: fc.oneof(
        fc.array(freeJson, { maxLength: 3 }),
        fc.record({ from: fc.integer(), to: fc.integer() }).map((range) => [range]),
        fc.constant([{ accountId: 'ACC1', symbol: 'BTCUSDT', side: 'buy', quantity: '0.5', clientOrderId: 'CO1' }]),
      ),
      options: fc.oneof(freeJson, fc.constant({ symbols: ['BINANCE:BTCUSDT'] })),
    };
  }

  for (const tool of TOOLS) {
    it(`SPEC §4 ${tool.name}: valid and mutated arguments reach the host SDK; every answer is well-formed, nothing hangs, the tab stays paired`, async () => {
      const valid = arbitraryFor(SCHEMAS[tool.name], { fields: steered() });
      const maybeMutated = fc.tuple(valid, fc.array(mutationArbitrary, { maxLength: 2 }), fc.boolean());
      await fc.assert(
        fc.asyncProperty(maybeMutated, async ([args, mutations, trading]) => {
          stats.fullStack += 1;
          const sent = mutations.length > 0 ? mutate(args, mutations) : args;
          const client = (trading ? clients.trade : clients.write).client;
          const rules = { limits: { ...DEFAULT_LIMITS }, fieldNames, valid: false };
          const problems = await fuzzOnce(client, tool.name, sent, rules, stats.stackCodes);
          if (stack.hub.status().requestsInFlight !== 0) problems.push('a request is still in flight after its answer');
          if (stack.status().state !== 'paired') problems.push(`the tab is ${stack.status().state}`);
          failWith(problems, tool.name, sent);
        }),
        { numRuns: 90 },
      );
      expect(stack.relay.links).toHaveLength(1);
    });
  }
});

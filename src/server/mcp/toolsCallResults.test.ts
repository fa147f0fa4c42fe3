/**
 * Why ToolsCallServer may leave out the SDK's result parse (issue 15): every
 * result our `tools/call` handler builds (all six tools, successes, every
 * error envelope, the snapshot's image item, on both revisions, from
 * generated valid, mutated and hostile arguments and generated page answers)
 * is accepted by the SDK's own `validateResult` of the instance's era, which
 * returns a value deep-equal to it and serialized to the same bytes.
 */
import fc from 'fast-check';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_CODES, ErrorObjectSchema, makeError, TOOLS, type ToolName } from '../../protocol/index.js';
import { mutate, mutationArbitrary, type Mutation } from '../../testing/mutations.js';
import { arbitraryFor, freeJson, type JsonSchema } from '../../testing/schemaArbitrary.js';
import type { HubOutcome } from '../hub/hubPort.js';
import { connectFront, connectStatelessFront, type Harness } from '../testing/testHarness.js';
import { defaultAnswer, InMemoryHub } from '../testing/testHub.js';
import type { McpExtension } from './createMcpServer.js';

/** The era codec an instance validates with (protected in the SDK; a test reaches it by name). */
interface CodecAccess {
  _wireCodec(): {
    era: string;
    validateResult(method: string, raw: unknown): { ok: true; value: unknown } | { ok: false; message?: string };
  };
}

/** Each result our handler returned, judged by the SDK's result check of the instance that served it. */
class ResultJudge {
  readonly problems: string[] = [];
  readonly eras = new Set<string>();
  /** `tool:code` of every result judged (`ok` for a success). */
  readonly seen = new Set<string>();

  /** Serves our handler through the SDK's own registration and judges what it returns. */
  readonly extend: McpExtension = (server, own) => {
    server.setRequestHandler('tools/call', async (request, extra) => {
      const result = await own.callTool(request, extra);
      this.judge((server as unknown as CodecAccess)._wireCodec(), request.params.name, result);
      return result;
    });
  };

  private judge(codec: ReturnType<CodecAccess['_wireCodec']>, tool: string, result: CallToolResult): void {
    this.eras.add(codec.era);
    const code = (result.structuredContent as { error?: { code?: string } | null } | undefined)?.error?.code;
    this.seen.add(`${tool}:${code ?? 'ok'}`);
    const shown = JSON.stringify(result).slice(0, 400);
    // The SDK gives `content: []` to a result without content; ours always has it, so that step changes nothing.
    if (!Array.isArray(result.content)) this.problems.push(`${codec.era} no content array: ${shown}`);
    const checked = codec.validateResult('tools/call', result);
    if (!checked.ok) this.problems.push(`${codec.era} refuses ${shown}: ${checked.message}`);
    else if (!isDeepStrictEqual(checked.value, result)) this.problems.push(`${codec.era} changes ${shown}`);
    else if (JSON.stringify(checked.value) !== JSON.stringify(result))
      this.problems.push(`${codec.era} reorders ${shown}`);
  }
}

const SCHEMAS = Object.fromEntries(
  TOOLS.map((tool) => [tool.name, z.toJSONSchema(tool.input, { io: 'input' }) as JsonSchema]),
) as Record<ToolName, JsonSchema>;
/** A page's error: one of every code with generated fields, or anything its schema's shape allows (most refused as unreadable). */
const errorObject = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({
        code: fc.constantFrom(...ERROR_CODES),
        message: fc.string(),
        status_code: fc.option(fc.integer()),
        broker_code: fc.option(fc.string()),
        broker_message: fc.option(fc.string()),
        request_id: fc.option(fc.string()),
        details: fc.option(fc.record({ reason: fc.string(), result: freeJson }, { requiredKeys: [] })),
      })
      .map(({ code, message, ...extras }) => makeError(code, message, extras as Parameters<typeof makeError>[2])),
  },
  { weight: 1, arbitrary: arbitraryFor(z.toJSONSchema(ErrorObjectSchema) as JsonSchema) },
);

/** What the page answers: a well-behaved answer, any error object, or any data at all. */
const pageAnswer = fc.oneof(
  { weight: 2, arbitrary: fc.constant('default' as const) },
  { weight: 3, arbitrary: fc.record({ error: errorObject, environment: fc.constantFrom('paper', 'live', null) }) },
  { weight: 1, arbitrary: fc.record({ data: freeJson, environment: fc.constantFrom('paper', 'live', null) }) },
);

/** Arguments mostly naming the hub's session, sometimes mutated. */
function argumentsFor(tool: ToolName) {
  const valid = arbitraryFor(SCHEMAS[tool], { fields: { sessionId: fc.constantFrom('s-1', 's-1', 'nope') } });
  return fc
    .tuple(valid, fc.array(mutationArbitrary, { maxLength: 2 }))
    .map(([args, mutations]: [unknown, Mutation[]]) => (mutations.length > 0 ? mutate(args, mutations) : args));
}

const FRONTS = {
  '2025-11-25': (hub: InMemoryHub, extend: McpExtension) => connectFront(hub, { extend }),
  '2026-07-28': (hub: InMemoryHub, extend: McpExtension) => connectStatelessFront(hub, { extend }),
};

for (const era of ['2025-11-25', '2026-07-28'] as const) {
  describe(`issue 15 SPEC §4 ${era}: the SDK's result check accepts every result of ours unchanged`, () => {
    const judge = new ResultJudge();
    const hub = new InMemoryHub();
    let harness: Harness;
    beforeAll(async () => {
      harness = await FRONTS[era](hub, judge.extend);
    });
    afterAll(async () => {
      await harness.close();
    });

    for (const tool of TOOLS) {
      it(`SPEC §4 ${tool.name}: generated arguments and page answers`, async () => {
        await fc.assert(
          fc.asyncProperty(argumentsFor(tool.name), pageAnswer, async (args, answer) => {
            hub.responder = (request): HubOutcome => {
              if (answer === 'default') return defaultAnswer(request);
              if ('error' in answer)
                return { ok: false, error: answer.error as never, environment: answer.environment };
              return { ok: true, data: answer.data, environment: answer.environment };
            };
            try {
              await harness.client.callTool({ name: tool.name, arguments: args as Record<string, unknown> });
            } catch {
              // Arguments that are not an object are a JSON-RPC error: no result to judge.
            }
            expect(judge.problems).toEqual([]);
          }),
          { numRuns: 150 },
        );
        expect(judge.seen.has(`${tool.name}:ok`), `${tool.name} succeeded at least once`).toBe(true);
      });
    }

    it('SPEC §4 every error code, answered by the page with generated fields, is judged on this era', async () => {
      const call = { sessionId: 's-1', target: { scope: 'session' }, controlId: 'chart.getVisibleRange', args: [] };
      for (const code of ERROR_CODES) {
        await fc.assert(
          fc.asyncProperty(errorObject, async (generated) => {
            const readable = ErrorObjectSchema.safeParse(generated);
            const error = readable.success ? { ...readable.data, code } : generated;
            hub.responder = () => ({ ok: false, error: error as never, environment: 'paper' });
            await harness.client.callTool({ name: 'tradescript_call', arguments: call });
            expect(judge.problems).toEqual([]);
          }),
          { numRuns: 10 },
        );
      }
      expect(judge.eras).toEqual(new Set([era]));
      const codes = new Set([...judge.seen].map((key) => key.split(':')[1]));
      expect(ERROR_CODES.filter((code) => !codes.has(code))).toEqual([]);
    });
  });
}

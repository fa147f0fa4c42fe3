/**
 * SPEC §3 malformed `tools/call` lines on raw stdio, both revisions: the CLI
 * answers each exactly as the build before ToolsCallServer did (issue 15: the
 * request is now checked once instead of twice, with the same SDK check). The
 * expected answers in `fixtures/malformedToolsCall.json` were recorded from
 * 6bd4779's CLI with this file:
 *
 *   TRADESCRIPT_BASELINE_BIN=<6bd4779>/dist/node/server/bin.js TRADESCRIPT_RECORD=1 \
 *     npx vitest run --project e2e e2e/malformedToolsCall.test.ts
 *
 * With `TRADESCRIPT_BASELINE_BIN` alone, that build runs beside this one and
 * both are compared live as well.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { modernMeta, toolsCallLine, type WireEra } from '../src/testing/modernEnvelope.js';
import { startServer } from './harness/server.js';

type Era = WireEra;

const ENVELOPE = modernMeta();

/** Each case's params (undefined: none sent). */
const CASES: Record<string, unknown> = {
  'no params': undefined,
  'params null': null,
  'params array': [1],
  'params string': 'x',
  'name missing': { arguments: {} },
  'name number': { name: 7, arguments: {} },
  'name null': { name: null },
  'arguments string': { name: 'tradescript_call', arguments: 'x' },
  'arguments array': { name: 'tradescript_call', arguments: [1, 2] },
  'arguments null': { name: 'tradescript_call', arguments: null },
  'arguments number': { name: 'tradescript_call', arguments: 3 },
  '_meta string': { name: 'tradescript_call', arguments: {}, _meta: 'x' },
  'progressToken object': { name: 'tradescript_call', arguments: {}, _meta: { progressToken: { a: 1 } } },
  'task string': { name: 'tradescript_call', arguments: {}, task: 'x' },
  'task ttl string': { name: 'tradescript_call', arguments: {}, task: { ttl: 'x' } },
  'unknown tool': { name: 'tradescript_nope', arguments: {} },
  'name and arguments wrong': { name: [], arguments: 'x' },
};

const FIXTURE = new URL('./fixtures/malformedToolsCall.json', import.meta.url);
const BASELINE = process.env['TRADESCRIPT_BASELINE_BIN'];

function openingOf(era: Era): string[] {
  if (era === '2026-07-28')
    return [JSON.stringify({ jsonrpc: '2.0', id: 'open', method: 'tools/list', params: { _meta: ENVELOPE } })];
  const initialize = {
    jsonrpc: '2.0',
    id: 'open',
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  return [JSON.stringify(initialize), JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })];
}

/** Times and generated ids of an envelope vary per run; the rest must not. */
const stable = (line: string) =>
  line.replace(/(observedAt\\?":\\?")[^"\\]+/g, '$1<time>').replace(/(operationId\\?":\\?")[^"\\]+/g, '$1<id>');

/**
 * What `bin` writes on stdout for each case, one case at a time: the case's
 * line, then a ping fence; every line written until the fence's answer (and
 * the case's own, when it has one) belongs to the case.
 */
async function answers(era: Era, bin?: string): Promise<Record<string, string[]>> {
  const server = await startServer(['serve', '--stdio'], bin === undefined ? {} : { bin });
  try {
    const lines = () => server.stdout().split('\n').filter(Boolean);
    const until = async (done: () => boolean, tries = 1_000) => {
      for (let i = 0; i < tries && !done(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const hasId = (id: string) => () => lines().some((line) => (JSON.parse(line) as { id?: unknown }).id === id);
    server.child.stdin?.write(openingOf(era).join('\n') + '\n');
    await until(hasId('open'));
    const out: Record<string, string[]> = {};
    for (const [id, params] of Object.entries(CASES)) {
      const before = lines().length;
      const fence = `fence ${id}`;
      const ping = {
        jsonrpc: '2.0',
        id: fence,
        method: 'ping',
        ...(era === '2026-07-28' ? { params: { _meta: ENVELOPE } } : {}),
      };
      server.child.stdin?.write(`${toolsCallLine(id, era, params)}\n${JSON.stringify(ping)}\n`);
      await until(hasId(fence));
      // A line that is no JSON-RPC request gets no answer (the transport drops it), in both builds.
      await until(hasId(id), 20);
      out[id] = lines()
        .slice(before)
        .filter((line) => (JSON.parse(line) as { id?: unknown }).id !== fence)
        .map(stable);
    }
    return out;
  } finally {
    await server.close();
  }
}

describe('SPEC §3 malformed tools/call on raw stdio answers as before issue 15', () => {
  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    it(`SPEC §3 ${era}: each malformed tools/call line gets the same code and message as from 6bd4779`, async () => {
      const ours = await answers(era);
      if (BASELINE !== undefined) {
        const theirs = await answers(era, BASELINE);
        if (process.env['TRADESCRIPT_RECORD'] === '1') {
          const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8').toString() || '{}') as Record<string, unknown>;
          writeFileSync(FIXTURE, JSON.stringify({ ...recorded, [era]: theirs }, null, 2) + '\n');
        }
        expect(ours).toEqual(theirs);
      }
      const expected = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<Era, Record<string, string[]>>)[era];
      expect(ours).toEqual(expected);
    }, 30_000);
  }
});

/**
 * The seed's own example (SPEC §10, reference 004 "One revision-safe call"),
 * sent as written against the demo terminal: only the placeholders the seed
 * names as coming from the sessions resource and from context are replaced with
 * live values. The times (2025-01-01 to 2025-01-02) are kept, so the demo
 * fetches that older history, as a terminal does when scrolled back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSIONS_URI, type CallReceipt, type ContextData, type SessionsDocument } from '../src/protocol/index.js';
import { openTerminal, type Terminal } from './harness/terminal.js';

/** Verbatim from reference/004_c98c04656a6524f9.txt, "One revision-safe call". */
const SEED_CALL = `{
  "sessionId": "session-from-resource",
  "target": { "scope": "chart", "chartId": "chart-from-context" },
  "controlId": "chart.setVisibleRange",
  "args": [
    { "startTime": 1735689600, "endTime": 1735776000 }
  ],
  "expectedRevisions": {
    "viewport": 12
  },
  "requestId": "client-request-42",
  "context": {
    "operationId": "visible-range-operation-42",
    "origin": "mcp"
  }
}`;

interface SeedCall {
  sessionId: string;
  target: { scope: 'chart'; chartId: string };
  controlId: string;
  args: [{ startTime: number; endTime: number }];
  expectedRevisions: { viewport: number };
  requestId: string;
  context: { operationId: string; origin: 'mcp' };
}

type Range = { symbol: string; interval: string; startTime: number; endTime: number };

let t: Terminal;

beforeAll(async () => {
  t = await openTerminal('http');
});

afterAll(async () => {
  await t?.close();
});

/** The sessions resource's session id, as the seed's placeholder says. */
async function sessionFromResource(): Promise<string> {
  const read = await t.client.readResource({ uri: SESSIONS_URI });
  const doc = JSON.parse((read.contents[0] as { text: string }).text) as SessionsDocument;
  expect(doc.sessions.map((s) => s.sessionId)).toContain(t.sessionId);
  return t.sessionId;
}

describe('SPEC §10 the seed example call works as written against the demo', () => {
  it('SPEC §5 §10 chart.setVisibleRange with [{startTime, endTime}], requestId and context {operationId, origin:"mcp"} moves the chart, and chart.getVisibleRange answers in the same names', async () => {
    const call = JSON.parse(SEED_CALL) as SeedCall;
    call.sessionId = await sessionFromResource();

    const session = await t.call<ContextData>('tradescript_get_context', {
      sessionId: call.sessionId,
      target: { scope: 'session' },
    });
    const chart = session.envelope
      .data!.availableTargets.map((entry) => entry.target)
      .find((target) => target.scope === 'chart');
    if (chart?.scope !== 'chart') throw new Error('the demo offers no chart target');
    call.target.chartId = chart.chartId;
    // "Read the owning controller's revisions immediately before a mutation."
    const context = await t.call<ContextData>('tradescript_get_context', {
      sessionId: call.sessionId,
      target: call.target,
    });
    const viewport = context.envelope.data!.controllerRevisions['chart']!['viewport']!;
    call.expectedRevisions.viewport = viewport;

    const moved = await t.call<CallReceipt>('tradescript_call', call as unknown as Record<string, unknown>);
    expect(moved.isError, JSON.stringify(moved.envelope.error)).toBe(false);
    const receipt = moved.envelope.data!;
    expect(receipt).toMatchObject({
      operationId: 'visible-range-operation-42',
      origin: 'mcp',
      controlId: 'chart.setVisibleRange',
      target: call.target,
      mutation: true,
      revisionsBefore: { viewport },
      revisionsAfter: { viewport: viewport + 1 },
    });
    expect(moved.envelope.meta.requestId).toBe('client-request-42');
    const shown = receipt.result as Range;
    // The chart shows the part of the day its bars hold, snapped to them, and says so.
    expect(shown.startTime).toBeGreaterThanOrEqual(1_735_689_600);
    expect(shown.endTime).toBeLessThanOrEqual(1_735_776_000);
    expect(shown.endTime).toBeGreaterThan(shown.startTime);

    const read = await t.call<CallReceipt>('tradescript_call', {
      sessionId: call.sessionId,
      target: call.target,
      controlId: 'chart.getVisibleRange',
    });
    expect(read.envelope.data!.result).toEqual(shown);
    expect(Object.keys(read.envelope.data!.result as object).sort()).toEqual([
      'endTime',
      'interval',
      'startTime',
      'symbol',
    ]);
    await expect
      .poll(() =>
        t.page.evaluate(
          (id) =>
            (
              window as unknown as {
                __tradescriptDemo: { charts: Record<string, { visibleRange(): { startTime: number } }> };
              }
            ).__tradescriptDemo.charts[id]!.visibleRange(),
          call.target.chartId,
        ),
      )
      .toEqual({ startTime: shown.startTime, endTime: shown.endTime });
  });

  it('SPEC §5 the same JSON with the now stale revision is a revision_conflict, and nothing moves', async () => {
    const call = JSON.parse(SEED_CALL) as SeedCall;
    call.sessionId = t.sessionId;
    call.target.chartId = 'btc-main';
    const context = await t.call<ContextData>('tradescript_get_context', {
      sessionId: call.sessionId,
      target: call.target,
    });
    const viewport = context.envelope.data!.controllerRevisions['chart']!['viewport']!;
    call.expectedRevisions.viewport = viewport - 1;
    call.context.operationId = 'visible-range-operation-43';
    const stale = await t.call('tradescript_call', call as unknown as Record<string, unknown>);
    expect(stale.envelope.error).toMatchObject({ code: 'revision_conflict', details: { current: { viewport } } });
  });
});

import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULT_LIMITS, type Operation, type RelayCall } from '../../../protocol/index.js';
import { defaultAnswer, receiptFor } from '../../testing/testHub.js';
import { callEnvelope, connectClient, sentOp as sentOpOf, type Harness } from '../../testing/testHarness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const chart = { scope: 'chart', chartId: 'main' } as const;
const entry = (extra: Record<string, unknown> = {}) => ({
  target: chart,
  controlId: 'chart.setVisibleRange',
  args: [{ startTime: 1, endTime: 2 }],
  expectedRevisions: { viewport: 1 },
  ...extra,
});
const call = (extra: Record<string, unknown> = {}) => ({ sessionId: 's-1', ...entry(extra) });

const run = (name: string, args: Record<string, unknown>) => callEnvelope(harness!, name, args);
const sentOp = <K extends Operation['kind']>(index: number, kind: K) => sentOpOf(harness!, index, kind);

describe('result limits on the server side', () => {
  const small = { ...DEFAULT_LIMITS, resultBytes: 2048 };
  const big = 'r'.repeat(4096);

  test('SPEC §6 a mutation whose result cannot fit keeps its receipt with result null and resultOmitted', async () => {
    harness = await connectClient({ config: { limits: small } });
    harness.hub.responder = (r) => ({
      ok: true,
      environment: 'paper',
      data: receiptFor((r.op as { call: RelayCall }).call, { result: big }),
    });
    const { result, payload } = await run('tradescript_call', call());
    expect(result.isError).toBe(false);
    expect(payload.data).toMatchObject({
      result: null,
      resultOmitted: { reason: 'result-too-large', limit: 'resultBytes' },
      mutation: true,
      revisionsBefore: { viewport: 1 },
      revisionsAfter: { viewport: 2 },
    });
    expect(payload.data?.['operationId']).toBe(sentOp(0, 'call').call.operationId);
  });

  test('SPEC §6 a read whose result cannot fit is limit_exceeded resultBytes', async () => {
    harness = await connectClient({ config: { limits: small } });
    harness.hub.responder = (r) => ({
      ok: true,
      environment: 'paper',
      data: receiptFor((r.op as { call: RelayCall }).call, { result: big, mutation: false }),
    });
    const read = await run('tradescript_call', call());
    expect(read.payload.error).toMatchObject({ code: 'limit_exceeded', details: { limit: 'resultBytes', max: 2048 } });
    harness.hub.responder = (r) => {
      const answer = defaultAnswer(r);
      return answer.ok ? { ...answer, data: { ...(answer.data as object), state: { blob: big } } } : answer;
    };
    const context = await run('tradescript_get_context', { sessionId: 's-1', target: { scope: 'session' } });
    expect(context.payload.error?.details).toEqual({ limit: 'resultBytes', max: 2048 });
  });

  test('SPEC §6 an oversized batch keeps compact mutation receipts and rejects the read that cannot fit', async () => {
    harness = await connectClient({ config: { limits: small } });
    harness.hub.responder = (r) => {
      const calls = (r.op as { calls: RelayCall[] }).calls;
      const outcomes = calls.map((c, index) => ({
        index,
        status: 'fulfilled',
        receipt: receiptFor(c, { result: big.slice(0, 1800), mutation: index === 0 }),
      }));
      return { ok: true, environment: 'paper', data: { atomic: false, outcomes } };
    };
    const { result, payload } = await run('tradescript_batch', { sessionId: 's-1', calls: [entry(), entry()] });
    expect(result.isError).toBe(false);
    const outcomes = (payload.data as { outcomes: Array<Record<string, unknown>> }).outcomes;
    expect(outcomes.map((o) => o['status'])).toEqual(['fulfilled', 'rejected']);
    expect(outcomes[0]?.['receipt']).toMatchObject({
      mutation: true,
      result: null,
      resultOmitted: { reason: 'result-too-large', limit: 'resultBytes' },
    });
    expect(outcomes[1]?.['error']).toMatchObject({
      code: 'limit_exceeded',
      details: { limit: 'resultBytes', max: 2048 },
    });
    expect(JSON.stringify(payload.data).length).toBeLessThanOrEqual(2048);
  });

  test('SPEC §3 a batch answer without exactly one outcome per input is internal_error', async () => {
    harness = await connectClient();
    harness.hub.responder = () => ({ ok: true, environment: 'paper', data: { atomic: false, outcomes: [] } });
    const { payload } = await run('tradescript_batch', { sessionId: 's-1', calls: [entry()] });
    expect(payload.error?.code).toBe('internal_error');
  });
});

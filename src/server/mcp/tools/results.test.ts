import { afterEach, describe, expect, test, vi } from 'vitest';
import { callTool, DEFAULT_LIMITS, relayLimitsOf, type Operation, type RelayCall } from '../../../protocol/index.js';
import { boundAnswer } from '../../hub/rules/answerLimits.js';
import { shapeSuccess } from './results.js';
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

describe('SPEC §6 an answer is read against its schema once on each side of the relay', () => {
  const readCall: RelayCall = {
    target: chart,
    controlId: 'chart.getVisibleRange',
    args: [],
    operationId: 'op-1',
    callerOperationId: false,
  };
  const answered = (data: unknown) => ({ ok: true as const, data, environment: 'paper' as const });
  const bound = (data: unknown) =>
    boundAnswer(answered(data), {
      op: { kind: 'call', call: readCall },
      limits: relayLimitsOf(DEFAULT_LIMITS),
      mutates: () => false,
      dispatchedAt: 0,
      now: 1,
    });

  test('a receipt this process’s hub read is taken as read by its front; the same receipt off the hub link is parsed', () => {
    const receipt = receiptFor(readCall, { result: { from: 1, to: 2 }, mutation: false });
    const fromHub = bound(receipt);
    expect(fromHub.ok).toBe(true);
    const parse = vi.spyOn(callTool.data, 'safeParse');
    try {
      const shaped = shapeSuccess('tradescript_call', fromHub as typeof fromHub & { ok: true }, DEFAULT_LIMITS);
      expect(shaped).toMatchObject({ ok: true, data: { result: { from: 1, to: 2 } } });
      expect(parse).not.toHaveBeenCalled();
      // What crossed the hub link (JSON, a new object) is read again, and a broken one is refused.
      const relayed = JSON.parse(JSON.stringify((fromHub as { data: unknown }).data)) as Record<string, unknown>;
      expect(shapeSuccess('tradescript_call', answered(relayed), DEFAULT_LIMITS).ok).toBe(true);
      expect(parse).toHaveBeenCalledTimes(1);
      const broken = shapeSuccess('tradescript_call', answered({ ...relayed, mutation: 'no' }), DEFAULT_LIMITS);
      expect(broken).toMatchObject({ ok: false, error: { code: 'internal_error' } });
    } finally {
      parse.mockRestore();
    }
  });

  test('an answer the hub could not read as a receipt is still refused by the front', () => {
    const notAReceipt = bound({ anything: true });
    expect(notAReceipt.ok).toBe(true);
    const shaped = shapeSuccess('tradescript_call', notAReceipt as typeof notAReceipt & { ok: true }, DEFAULT_LIMITS);
    expect(shaped).toMatchObject({ ok: false, error: { code: 'internal_error' } });
  });

  test('SPEC §6 a receipt is measured in UTF-8 bytes of its JSON, and its measured text is the one sent', () => {
    const receipt = receiptFor(readCall, { result: 'é'.repeat(600), mutation: false });
    const text = JSON.stringify(receipt);
    const bytes = new TextEncoder().encode(text).byteLength;
    const fits = shapeSuccess('tradescript_call', answered(receipt), { ...DEFAULT_LIMITS, resultBytes: bytes });
    expect(fits).toEqual({ ok: true, data: receipt, images: [], dataJson: text });
    // Within the limit in UTF-16 units, over it in bytes: a read over resultBytes.
    const over = shapeSuccess('tradescript_call', answered(receipt), { ...DEFAULT_LIMITS, resultBytes: bytes - 1 });
    expect(text.length).toBeLessThan(bytes - 1);
    expect(over).toMatchObject({ ok: false, error: { code: 'limit_exceeded', details: { limit: 'resultBytes' } } });
  });

  test('SPEC §4 a call result’s text item is exactly the JSON of its structuredContent', async () => {
    harness = await connectClient();
    harness.hub.responder = (r) => ({
      ok: true,
      environment: 'paper',
      data: receiptFor((r.op as { call: RelayCall }).call, { result: { note: 'ünïcode \u2028 "q"', n: [1, 2.5] } }),
    });
    const { result } = await run('tradescript_call', call({ requestId: 'req-9' }));
    const content = result.content as Array<{ type: string; text: string }>;
    expect(result.isError).toBe(false);
    expect(content[0]?.text).toBe(JSON.stringify(result.structuredContent));
  });
});

import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULT_LIMITS, ERROR_RETRY, makeError, type Operation, type RelayCall } from '../../../protocol/index.js';
import { defaultAnswer } from '../../testing/testHub.js';
import { callEnvelope, connectClient, sentOp as sentOpOf, waitFor, type Harness } from '../../testing/testHarness.js';

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

describe('envelope', () => {
  test('SPEC §4 a success carries the same JSON twice, data set, error null, meta filled', async () => {
    harness = await connectClient();
    const { result, payload } = await run('tradescript_get_context', {
      sessionId: 's-1',
      target: { scope: 'session' },
    });
    expect(result.isError).toBe(false);
    expect(result.content).toHaveLength(1);
    expect(payload.error).toBeNull();
    expect(payload.data?.['sessionId']).toBe('s-1');
    expect(payload.meta).toEqual({ sessionId: 's-1', environment: 'paper', observedAt: expect.any(String) as string });
    expect(new Date(payload.meta.observedAt).toISOString()).toBe(payload.meta.observedAt);
  });

  test('SPEC §4 a page error is passed through with every key, and the client still validates it', async () => {
    harness = await connectClient();
    harness.hub.responder = () => ({
      ok: false,
      environment: 'live',
      error: makeError('revision_conflict', 'Re-read context.', { details: { current: { viewport: 13 } } }),
    });
    // client.callTool validates structuredContent against outputSchema even though isError is true.
    const { result, payload } = await run('tradescript_call', call());
    expect(result.isError).toBe(true);
    expect(payload.data).toBeNull();
    expect(payload.error).toMatchObject({
      code: 'revision_conflict',
      retry: 'after_reread',
      details: { current: { viewport: 13 } },
    });
    expect(payload.meta).toMatchObject({ sessionId: 's-1', environment: 'live' });
  });

  test('SPEC §3 meta.requestId echoes the caller requestId only when given; a batch has none at top level', async () => {
    harness = await connectClient();
    const withId = await run('tradescript_call', call({ requestId: 'client-request-42' }));
    expect(withId.payload.meta.requestId).toBe('client-request-42');
    expect(sentOp(0, 'call').call.requestId).toBe('client-request-42');
    const without = await run('tradescript_call', call());
    expect(without.payload.meta).not.toHaveProperty('requestId');
    const batch = await run('tradescript_batch', { sessionId: 's-1', calls: [entry({ requestId: 'inner-1' })] });
    expect(batch.payload.meta).not.toHaveProperty('requestId');
    expect(sentOp(2, 'batch').calls[0]?.requestId).toBe('inner-1');
  });

  test('SPEC §4 an answer that does not match the data schema is internal_error, logged by tool name only', async () => {
    harness = await connectClient();
    harness.hub.responder = () => ({ ok: true, environment: 'paper', data: { surprise: 'SECRET-BROKER-TEXT' } });
    const { payload } = await run('tradescript_call', call({ args: ['ARG-VALUE-XYZ'] }));
    expect(payload.error).toMatchObject({ code: 'internal_error', retry: ERROR_RETRY.internal_error });
    const logs = harness.logs.join('\n');
    expect(logs).toContain('tradescript_call');
    expect(logs).toContain('internal_error');
    expect(logs).not.toContain('SECRET-BROKER-TEXT');
    expect(logs).not.toContain('ARG-VALUE-XYZ');
  });

  test('SPEC §4 a malformed page error object becomes internal_error', async () => {
    harness = await connectClient();
    harness.hub.responder = () => ({ ok: false, environment: null, error: { code: 'made_up' } as never });
    const { payload } = await run('tradescript_get_context', { sessionId: 's-1', target: { scope: 'session' } });
    expect(payload.error?.code).toBe('internal_error');
  });
  test('SPEC §4 a hub that throws (against its contract) gives internal_error naming the next step', async () => {
    harness = await connectClient();
    harness.hub.responder = () => {
      throw new Error('socket exploded with SECRET-DETAIL');
    };
    const { payload } = await run('tradescript_call', call());
    expect(payload.error).toMatchObject({ code: 'internal_error', retry: 'never' });
    expect(payload.error?.message).toContain('restart');
    expect(JSON.stringify(payload)).not.toContain('SECRET-DETAIL');
    // Without the hub nothing says the session exists: the id is not echoed (SPEC §11).
    expect(payload.meta.sessionId).toBeNull();
  });
});

describe('operation identity and the hub request', () => {
  test('SPEC §5 a call without context.operationId gets a generated attachment-unique id', async () => {
    harness = await connectClient();
    await run('tradescript_call', call());
    await run('tradescript_call', call());
    const first = sentOp(0, 'call').call;
    const second = sentOp(1, 'call').call;
    expect(first.callerOperationId).toBe(false);
    expect(first.operationId).toMatch(/^gen-[^-]+/);
    expect(second.operationId).not.toBe(first.operationId);
  });

  test('SPEC §5 a caller operationId is passed unchanged and marked as the caller’s; origin is not forwarded', async () => {
    harness = await connectClient();
    const { payload } = await run(
      'tradescript_call',
      call({ context: { operationId: 'visible-range-42', origin: 'mcp' } }),
    );
    const sent = sentOp(0, 'call').call;
    expect(sent).toEqual({
      target: chart,
      controlId: 'chart.setVisibleRange',
      args: [{ startTime: 1, endTime: 2 }],
      expectedRevisions: { viewport: 1 },
      operationId: 'visible-range-42',
      callerOperationId: true,
    } satisfies RelayCall);
    expect(payload.data?.['operationId']).toBe('visible-range-42');
  });

  test('SPEC §3 a batch goes to the page in one request, each call with its own operation id', async () => {
    harness = await connectClient();
    const calls = [entry(), entry({ context: { operationId: 'mine-1' } }), entry()];
    const { payload } = await run('tradescript_batch', { sessionId: 's-1', calls, stopOnError: false });
    expect(harness.hub.requests).toHaveLength(1);
    const sent = sentOp(0, 'batch');
    expect(sent.stopOnError).toBe(false);
    expect(sent.calls.map((c) => c.callerOperationId)).toEqual([false, true, false]);
    expect(sent.calls[1]?.operationId).toBe('mine-1');
    expect(new Set(sent.calls.map((c) => c.operationId)).size).toBe(3);
    expect(payload.data).toMatchObject({ atomic: false, outcomes: [{ index: 0 }, { index: 1 }, { index: 2 }] });
  });

  test('SPEC §9 every request carries this front’s adapter maximum, limits, deadline and the cancel signal', async () => {
    harness = await connectClient({
      config: { adapter: { maxAccess: 'trade', allowControls: ['orders.cancelOrder'] } },
    });
    await run('tradescript_list_controls', { sessionId: 's-1', target: chart, limit: 5 });
    const request = harness.hub.requests[0]!;
    expect(request.attachmentId).toBe(harness.hub.attached[0]?.attachmentId);
    expect(request.sessionId).toBe('s-1');
    expect(request.op).toEqual({ kind: 'listControls', input: { target: chart, limit: 5 } });
    expect(request.options.adapter).toEqual({ maxAccess: 'trade', allowControls: ['orders.cancelOrder'] });
    expect(request.options.deadlineMs).toBe(DEFAULT_LIMITS.callDeadlineMs);
    expect(request.options.limits).not.toHaveProperty('requestBytes');
    expect(request.options.limits.batchCalls).toBe(DEFAULT_LIMITS.batchCalls);
    expect(request.options.signal).toBeInstanceOf(AbortSignal);
    expect(request.options.onProgress).toBeUndefined();
  });

  test('SPEC §5 a cancelled request aborts the signal handed to the hub', async () => {
    harness = await connectClient();
    let aborted = false;
    harness.hub.responder = (request) =>
      new Promise((resolve) => {
        request.options.signal?.addEventListener('abort', () => {
          aborted = true;
          resolve(defaultAnswer(request));
        });
      });
    const controller = new AbortController();
    const pending = harness.client.callTool(
      { name: 'tradescript_call', arguments: call() },
      {
        signal: controller.signal,
      },
    );
    await waitFor(() => harness!.hub.requests.length === 1, 'the hub request');
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(() => aborted, 'the abort to reach the hub');
  });
});

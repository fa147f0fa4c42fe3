import { describe, expect, it } from 'vitest';
import { BatchDataSchema, jsonByteLength, type RelayCall } from '../../protocol/index.js';
import { CHART, SESSION, call, defaultLimits, order, owned, request, terminal } from '../testing/fixtures.js';
import { dataOf, errorOf } from '../testing/expect.js';

const c = (op: ReturnType<typeof call>): RelayCall => op.call;

describe('SPEC §3 batch', () => {
  it('runs calls in order through the dispatcher, exactly one outcome per input, not atomic', async () => {
    const { host, chartState } = terminal();
    const calls = [
      c(call('chart.setVisibleRange', CHART, [{ from: 1, to: 2 }], { expectedRevisions: { viewport: 0 } })),
      c(call('chart.getVisibleRange', CHART, [])),
      c(call('chart.setVisibleRange', CHART, [{ from: 3, to: 4 }], { expectedRevisions: { viewport: 1 } })),
    ];
    const progress: Array<[number, number]> = [];
    const out = await host.handle(request({ kind: 'batch', calls, stopOnError: true }), {
      progress: (p, t) => progress.push([p, t]),
    });
    const data = BatchDataSchema.parse(dataOf(out));
    expect(data.atomic).toBe(false);
    expect(data.outcomes.map((o) => [o.index, o.status])).toEqual([
      [0, 'fulfilled'],
      [1, 'fulfilled'],
      [2, 'fulfilled'],
    ]);
    expect(progress).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(chartState).toEqual({ from: 3, to: 4 });
  });

  it('stopOnError (default) marks trailing calls skipped stop-on-error; nothing is rolled back', async () => {
    const { host, chartState } = terminal();
    const calls = [
      c(call('chart.setVisibleRange', CHART, [{ from: 1, to: 2 }], { expectedRevisions: { viewport: 0 } })),
      c(call('chart.setVisibleRange', CHART, [{ from: 3, to: 4 }], { expectedRevisions: { viewport: 0 } })),
      c(call('chart.getVisibleRange', CHART, [])),
    ];
    const data = BatchDataSchema.parse(dataOf(await host.handle(request({ kind: 'batch', calls, stopOnError: true }))));
    expect(data.outcomes[0]?.status).toBe('fulfilled');
    const second = data.outcomes[1];
    expect(second?.status === 'rejected' && second.error.code).toBe('revision_conflict');
    expect(data.outcomes[2]).toEqual({ index: 2, status: 'skipped', reason: 'stop-on-error' });
    expect(chartState).toEqual({ from: 1, to: 2 });
  });

  it('stopOnError false keeps going after a rejected call', async () => {
    const { host } = terminal();
    const calls = [c(call('chart.nothing', CHART, [])), c(call('chart.getVisibleRange', CHART, []))];
    const data = BatchDataSchema.parse(
      dataOf(await host.handle(request({ kind: 'batch', calls, stopOnError: false }))),
    );
    expect(data.outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled']);
  });

  it('batch calls share operation identity with single calls', async () => {
    const { host, broker } = terminal();
    const op = call('orders.placeOrder', SESSION, [order()], owned('b-1'));
    await host.handle(request(op));
    const data = BatchDataSchema.parse(
      dataOf(await host.handle(request({ kind: 'batch', calls: [op.call], stopOnError: true }))),
    );
    expect(data.outcomes[0]?.status).toBe('fulfilled');
    expect(broker.placeCalls).toBe(1);
  });

  it('response-size-limit: the last executed mutation keeps a compact receipt and the rest are skipped', async () => {
    const { host } = terminal();
    const limits = defaultLimits({ resultBytes: 64 * 1024 });
    const calls = [
      c(call('chart.annotate', CHART, [500])),
      c(call('chart.annotate', CHART, [500])),
      c(call('chart.getVisibleRange', CHART, [])),
      c(call('chart.getVisibleRange', CHART, [])),
    ];
    const out = await host.handle(request({ kind: 'batch', calls, stopOnError: true }, { limits }));
    const data = BatchDataSchema.parse(dataOf(out));
    expect(data.outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'skipped', 'skipped']);
    const compact = data.outcomes[1];
    expect(compact?.status === 'fulfilled' && compact.receipt).toMatchObject({
      controlId: 'chart.annotate',
      mutation: true,
      result: null,
      resultOmitted: { reason: 'result-too-large', limit: 'resultBytes' },
    });
    expect(data.outcomes.slice(2).every((o) => o.status === 'skipped' && o.reason === 'response-size-limit')).toBe(
      true,
    );
    expect(jsonByteLength(out)).toBeLessThanOrEqual(limits.resultBytes);
  });

  it('response-size-limit: a read that no longer fits is limit_exceeded and the rest are skipped', async () => {
    const { host } = terminal();
    const limits = defaultLimits({ resultBytes: 64 * 1024 });
    const calls = [
      c(call('chart.exportBars', CHART, [500])),
      c(call('chart.exportBars', CHART, [500])),
      c(call('chart.getVisibleRange', CHART, [])),
    ];
    const data = BatchDataSchema.parse(
      dataOf(await host.handle(request({ kind: 'batch', calls, stopOnError: false }, { limits }))),
    );
    expect(data.outcomes[0]?.status).toBe('fulfilled');
    const second = data.outcomes[1];
    expect(second?.status === 'rejected' && second.error.details).toEqual({ limit: 'resultBytes', max: 64 * 1024 });
    expect(data.outcomes[2]).toEqual({ index: 2, status: 'skipped', reason: 'response-size-limit' });
  });

  it("a single result too large on its own is that call's outcome; the batch goes on", async () => {
    const { host } = terminal();
    const limits = defaultLimits({ resultBytes: 64 * 1024 });
    const calls = [
      c(call('chart.exportBars', CHART, [2000])),
      c(call('chart.annotate', CHART, [2000])),
      c(call('chart.getVisibleRange', CHART, [])),
    ];
    const data = BatchDataSchema.parse(
      dataOf(await host.handle(request({ kind: 'batch', calls, stopOnError: false }, { limits }))),
    );
    const [read, mutation, last] = data.outcomes;
    expect(read?.status === 'rejected' && read.error.code).toBe('limit_exceeded');
    expect(mutation?.status === 'fulfilled' && mutation.receipt.resultOmitted).toEqual({
      reason: 'result-too-large',
      limit: 'resultBytes',
    });
    expect(last?.status).toBe('fulfilled');
  });

  it('space is reserved before each next call: calls that would not fit are not run', async () => {
    const { host, chartState } = terminal();
    const limits = defaultLimits({ resultBytes: 24 * 1024 });
    const calls = [
      c(call('chart.exportBars', CHART, [150])),
      c(call('chart.exportBars', CHART, [150])),
      c(call('chart.setVisibleRange', CHART, [{ from: 9, to: 9 }], { expectedRevisions: { viewport: 0 } })),
    ];
    const out = await host.handle(request({ kind: 'batch', calls, stopOnError: false }, { limits }));
    const data = BatchDataSchema.parse(dataOf(out));
    expect(data.outcomes.at(-1)).toEqual({ index: 2, status: 'skipped', reason: 'response-size-limit' });
    expect(chartState.from).toBe(0);
    expect(jsonByteLength(out)).toBeLessThanOrEqual(limits.resultBytes);
  });

  it('SPEC §6 more calls than batchCalls is one limit_exceeded and nothing runs', async () => {
    const { host, chartState } = terminal();
    const calls = Array.from({ length: 26 }, () =>
      c(call('chart.setVisibleRange', CHART, [{ from: 5, to: 5 }], { expectedRevisions: { viewport: 0 } })),
    );
    const error = errorOf(await host.handle(request({ kind: 'batch', calls, stopOnError: false })));
    expect(error.details).toEqual({ limit: 'batchCalls', max: 25 });
    expect(chartState.from).toBe(0);
  });
});

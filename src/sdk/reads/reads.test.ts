import { describe, expect, it } from 'vitest';
import { SESSION, call, chartController, chartImpl, order, owned, request, terminal } from '../testing/fixtures.js';
import { errorOf, receiptOf } from '../testing/expect.js';

const list = () => call('orders.listOrders', SESSION, []);

describe('reads (SPEC §5 at most once, automatic read retry)', () => {
  it.each(['service-unavailable', 'rate-limited', 'transport-error', 'invalid-broker-response'] as const)(
    'SPEC §5 a read is retried automatically on %s and then succeeds',
    async (failure) => {
      const waits: number[] = [];
      const { host, broker } = terminal({
        sleep: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
      });
      broker.next({ kind: 'fail', failure }, { kind: 'fail', failure });
      receiptOf(await host.handle(request(list())));
      expect(broker.listCalls).toBe(3);
      expect(waits).toHaveLength(2);
      expect(waits[1]).toBeGreaterThan(waits[0]!);
    },
  );

  it('SPEC §5 a read makes at most 3 attempts, then reports the code with after_backoff', async () => {
    const { host, broker } = terminal();
    broker.next(
      ...Array.from({ length: 5 }, () => ({ kind: 'fail' as const, failure: 'service-unavailable' as const })),
    );
    const error = errorOf(await host.handle(request(list())));
    expect(error).toMatchObject({ code: 'service_unavailable', retry: 'after_backoff' });
    expect(broker.listCalls).toBe(3);
  });

  it('SPEC §4 not_found on a read is after_reread and not retried', async () => {
    const { host, broker } = terminal();
    broker.next({ kind: 'fail', failure: 'not-found' });
    expect(errorOf(await host.handle(request(list())))).toMatchObject({ code: 'not_found', retry: 'after_reread' });
    expect(broker.listCalls).toBe(1);
  });

  it('SPEC §4 a read that throws is control_failed with a receipt and no exception text', async () => {
    const { host, broker } = terminal();
    broker.next({ kind: 'throw' });
    const out = await host.handle(request(list()));
    const error = errorOf(out);
    expect(error.code).toBe('control_failed');
    expect(error.details?.receipt?.mutation).toBe(false);
    expect(JSON.stringify(out)).not.toContain('secret-internal-detail');
    expect(broker.listCalls).toBe(1);
  });

  it('SPEC §5 a cancelled read not yet answered is abandoned', async () => {
    const { host } = terminal();
    const hanging = { scope: 'chart', chartId: 'slow' } as const;
    host.registerTarget(hanging, { label: 'slow' });
    let seenSignal: AbortSignal | undefined;
    host.mount(hanging, chartController, {
      ...chartImpl(),
      getVisibleRange: (ctx) => {
        seenSignal = ctx.signal;
        return new Promise(() => undefined);
      },
    });
    const cancel = new AbortController();
    const pending = host.handle(request(call('chart.getVisibleRange', hanging, [])), { signal: cancel.signal });
    await Promise.resolve();
    cancel.abort();
    const error = errorOf(await pending);
    expect(error.code).toBe('control_failed');
    expect(seenSignal?.aborted).toBe(true);
  });

  it('SPEC §5 a cancel does not stop a dispatched mutation: it runs to its recorded outcome', async () => {
    const { host } = terminal();
    const c5 = { scope: 'chart', chartId: 'c5' } as const;
    host.registerTarget(c5, { label: 'c5' });
    let finish!: () => void;
    let dispatched!: () => void;
    const started = new Promise<void>((resolve) => (dispatched = resolve));
    let dispatches = 0;
    host.mount(c5, chartController, {
      ...chartImpl(),
      annotate: async (ctx) => {
        dispatches += 1;
        dispatched();
        await new Promise<void>((resolve) => (finish = resolve));
        expect(ctx.signal.aborted).toBe(false);
        return [{ t: 1, note: 'done' }];
      },
    });
    const cancel = new AbortController();
    const op = call('chart.annotate', c5, [1], owned('op-c'));
    const pending = host.handle(request(op), { signal: cancel.signal });
    await started;
    cancel.abort();
    finish();
    const receipt = receiptOf(await pending);
    expect(receipt.result).toEqual([{ t: 1, note: 'done' }]);
    expect(receiptOf(await host.handle(request(op)))).toEqual(receipt);
    expect(dispatches).toBe(1);
  });

  it('SPEC §5 a mutation cancelled before dispatch is not dispatched and nothing is recorded', async () => {
    const { host, broker } = terminal();
    const cancel = new AbortController();
    const op = call('orders.placeOrder', SESSION, [order()], owned('op-b'));
    const pending = host.handle(request(op), { signal: cancel.signal });
    cancel.abort();
    expect(errorOf(await pending).code).toBe('control_failed');
    expect(broker.placeCalls).toBe(0);
    receiptOf(await host.handle(request(op)));
    expect(broker.placeCalls).toBe(1);
  });
});

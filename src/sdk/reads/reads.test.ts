import { describe, expect, it } from 'vitest';
import { SESSION, call, chartController, chartImpl, order, owned, request, terminal } from '../testing/fixtures.js';
import { errorOf, receiptOf } from '../testing/expect.js';
import type { RequestHooks } from '../types.js';

const list = () => call('orders.listOrders', SESSION, []);

/** A caller's cancel, offered either way `RequestHooks` allows; `signalReads` counts reads of `signal`. */
interface Canceller {
  hooks: RequestHooks;
  cancel(): void;
  signalReads(): number;
}

const cancellers: Record<'signal' | 'onAbort', () => Canceller> = {
  signal: () => {
    const controller = new AbortController();
    return { hooks: { signal: controller.signal }, cancel: () => controller.abort(), signalReads: () => 0 };
  },
  // The relay's and the host-call link's way: the SDK must hear the cancel without making a signal.
  onAbort: () => {
    const listeners: (() => void)[] = [];
    let cancelled = false;
    let reads = 0;
    const hooks: RequestHooks = {
      get signal() {
        reads += 1;
        return undefined;
      },
      onAbort(listener) {
        if (cancelled) listener();
        else listeners.push(listener);
      },
    };
    const cancel = (): void => {
      cancelled = true;
      for (const listener of listeners.splice(0)) listener();
    };
    return { hooks, cancel, signalReads: () => reads };
  },
};
const cancelWays = Object.keys(cancellers) as Array<keyof typeof cancellers>;

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

  it.each(cancelWays)('SPEC §5 a cancelled read not yet answered is abandoned (cancel by %s)', async (way) => {
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
    const { hooks, cancel, signalReads } = cancellers[way]();
    const pending = host.handle(request(call('chart.getVisibleRange', hanging, [])), hooks);
    await Promise.resolve();
    expect(seenSignal?.aborted).toBe(false);
    cancel();
    const error = errorOf(await pending);
    expect(error.code).toBe('control_failed');
    expect(seenSignal?.aborted).toBe(true);
    expect(signalReads()).toBe(0);
  });

  it.each(cancelWays)(
    'SPEC §5 a cancel does not stop a dispatched mutation: it runs to its recorded outcome (cancel by %s)',
    async (way) => {
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
      const { hooks, cancel, signalReads } = cancellers[way]();
      const op = call('chart.annotate', c5, [1], owned(`op-c-${way}`));
      const pending = host.handle(request(op), hooks);
      await started;
      cancel();
      finish();
      const receipt = receiptOf(await pending);
      expect(receipt.result).toEqual([{ t: 1, note: 'done' }]);
      expect(receiptOf(await host.handle(request(op)))).toEqual(receipt);
      expect(dispatches).toBe(1);
      expect(signalReads()).toBe(0);
    },
  );

  it.each(cancelWays)(
    'SPEC §5 a mutation cancelled before dispatch is not dispatched and nothing is recorded (cancel by %s)',
    async (way) => {
      const { host, broker } = terminal();
      const { hooks, cancel, signalReads } = cancellers[way]();
      const op = call('orders.placeOrder', SESSION, [order()], owned('op-b'));
      const pending = host.handle(request(op), hooks);
      cancel();
      expect(errorOf(await pending).code).toBe('control_failed');
      expect(broker.placeCalls).toBe(0);
      receiptOf(await host.handle(request(op)));
      expect(broker.placeCalls).toBe(1);
      expect(signalReads()).toBe(0);
    },
  );
});

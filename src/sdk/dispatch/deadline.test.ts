import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cancelOf, requestStop, settle, startDeadline } from './deadline.js';
import { CHART, call, chartController, chartImpl, owned, request, terminal } from '../testing/fixtures.js';
import { errorOf, receiptOf } from '../testing/expect.js';

describe('deadline and stop of one request (SPEC §6 call deadline; issue 15: no timer per call)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('SPEC §6 a deadline starts its timer only when its signal is asked for, and the signal aborts at the deadline', () => {
    const deadline = startDeadline(1_000);
    expect(vi.getTimerCount()).toBe(0);
    const { signal } = deadline;
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(999);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(signal.aborted).toBe(true);
    expect(deadline.aborted).toBe(true);
  });

  it('SPEC §6 a deadline is expired when its time has passed, whether or not a signal was made', () => {
    const deadline = startDeadline(50);
    vi.advanceTimersByTime(50);
    expect(deadline.aborted).toBe(true);
    expect(deadline.signal.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('SPEC §6 disposing a deadline clears its timer', () => {
    const deadline = startDeadline(1_000);
    void deadline.signal;
    deadline.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('SPEC §5 a stop is aborted by the cancel signal or the deadline, and its signal follows both', () => {
    const cancel = new AbortController();
    const stop = requestStop(cancelOf({ signal: cancel.signal }), startDeadline(1_000));
    expect(stop.aborted).toBe(false);
    const { signal } = stop;
    cancel.abort();
    expect(stop.aborted).toBe(true);
    expect(signal.aborted).toBe(true);
    const late = requestStop(cancelOf(), startDeadline(10));
    vi.advanceTimersByTime(10);
    expect(late.aborted).toBe(true);
  });

  it('SPEC §5 a cancel offered as onAbort is heard through one listener; its signal is made only when read, and aborts', () => {
    let fire: (() => void) | undefined;
    let registered = 0;
    const cancel = cancelOf({
      get signal(): AbortSignal {
        throw new Error('the SDK read the caller’s signal');
      },
      onAbort(listener) {
        registered += 1;
        fire = listener;
      },
    });
    expect(registered).toBe(1);
    expect(cancel.aborted).toBe(false);
    const { signal } = cancel;
    const heard: string[] = [];
    const stop = requestStop(cancel, startDeadline(1_000));
    stop.onAbort(() => heard.push('stop'));
    expect(vi.getTimerCount()).toBe(1);
    fire?.();
    fire?.();
    expect(cancel.aborted).toBe(true);
    expect(signal.aborted).toBe(true);
    expect(stop.aborted).toBe(true);
    expect(heard).toEqual(['stop']);
    cancel.onAbort(() => heard.push('late'));
    expect(heard).toEqual(['stop', 'late']);
  });

  it('SPEC §5 a host’s own signal gets no listener from a read answered at once, and still cancels one that waits', async () => {
    const { host } = terminal();
    const shared = new AbortController();
    const listen = vi.spyOn(shared.signal, 'addEventListener');
    receiptOf(await host.handle(request(call('chart.getVisibleRange', CHART, [])), { signal: shared.signal }));
    expect(listen).not.toHaveBeenCalled();
    const cancel = cancelOf({ signal: shared.signal });
    const heard: string[] = [];
    cancel.onAbort(() => heard.push('cancel'));
    expect(listen).toHaveBeenCalledTimes(1);
    shared.abort();
    expect(heard).toEqual(['cancel']);
    expect(cancel.aborted).toBe(true);
  });

  it('SPEC §6 a deadline’s listeners start its one timer and hear the deadline once', () => {
    const deadline = startDeadline(1_000);
    const heard: number[] = [];
    deadline.onAbort(() => heard.push(1));
    deadline.onAbort(() => heard.push(2));
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1_000);
    expect(heard).toEqual([1, 2]);
    expect(deadline.aborted).toBe(true);
    deadline.onAbort(() => heard.push(3));
    expect(heard).toEqual([1, 2, 3]);
  });

  it('SPEC §5 a value given at once settles without waiting on the stop, unless the stop already fired', async () => {
    const deadline = startDeadline(1_000);
    await expect(settle(() => 7, requestStop(cancelOf(), deadline))).resolves.toEqual({ kind: 'value', value: 7 });
    expect(vi.getTimerCount()).toBe(0);
    const cancelled = new AbortController();
    cancelled.abort();
    await expect(settle(() => 7, requestStop(cancelOf({ signal: cancelled.signal }), deadline))).resolves.toEqual({
      kind: 'aborted',
    });
    await expect(settle(() => Promise.resolve(8), requestStop(cancelOf(), deadline))).resolves.toEqual({
      kind: 'value',
      value: 8,
    });
  });

  it('SPEC §5 a read whose control answers at once leaves no timer behind and still gets its receipt', async () => {
    const { host } = terminal();
    receiptOf(await host.handle(request(call('chart.getVisibleRange', CHART, []))));
    expect(vi.getTimerCount()).toBe(0);
  });

  it('SPEC §5 a mutation under its free controller lock runs with no deadline timer when its control answers at once', async () => {
    const { host } = terminal();
    const c7 = { scope: 'chart', chartId: 'c7' } as const;
    host.registerTarget(c7, { label: 'c7' });
    const timersAtDispatch: number[] = [];
    const impl = chartImpl();
    host.mount(c7, chartController, {
      ...impl,
      setVisibleRange: (ctx, range) => {
        timersAtDispatch.push(vi.getTimerCount());
        return impl.setVisibleRange(ctx, range);
      },
    });
    const op = call('chart.setVisibleRange', c7, [{ from: 1, to: 2 }], {
      ...owned('op-t'),
      expectedRevisions: { viewport: 0 },
    });
    receiptOf(await host.handle(request(op)));
    expect(timersAtDispatch).toEqual([0]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('SPEC §6 a read that does not answer is abandoned at the deadline, and its ctx.signal aborts', async () => {
    const { host } = terminal();
    const hanging = { scope: 'chart', chartId: 'slow' } as const;
    host.registerTarget(hanging, { label: 'slow' });
    let seen: AbortSignal | undefined;
    host.mount(hanging, chartController, {
      ...chartImpl(),
      getVisibleRange: (ctx) => {
        seen = ctx.signal;
        return new Promise(() => undefined);
      },
    });
    const pending = host.handle(request(call('chart.getVisibleRange', hanging, []), { deadlineMs: 500 }));
    await vi.advanceTimersByTimeAsync(500);
    expect(errorOf(await pending).code).toBe('control_failed');
    expect(seen?.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});

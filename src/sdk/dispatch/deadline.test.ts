import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { requestStop, settle, startDeadline } from './deadline.js';
import { CHART, call, chartController, chartImpl, request, terminal } from '../testing/fixtures.js';
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
    expect(deadline.expired()).toBe(true);
  });

  it('SPEC §6 a deadline is expired when its time has passed, whether or not a signal was made', () => {
    const deadline = startDeadline(50);
    vi.advanceTimersByTime(50);
    expect(deadline.expired()).toBe(true);
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
    const stop = requestStop(cancel.signal, startDeadline(1_000));
    expect(stop.aborted).toBe(false);
    const { signal } = stop;
    cancel.abort();
    expect(stop.aborted).toBe(true);
    expect(signal.aborted).toBe(true);
    const late = requestStop(undefined, startDeadline(10));
    vi.advanceTimersByTime(10);
    expect(late.aborted).toBe(true);
  });

  it('SPEC §5 a value given at once settles without waiting on the stop, unless the stop already fired', async () => {
    const deadline = startDeadline(1_000);
    await expect(settle(() => 7, requestStop(undefined, deadline))).resolves.toEqual({ kind: 'value', value: 7 });
    expect(vi.getTimerCount()).toBe(0);
    const cancelled = new AbortController();
    cancelled.abort();
    await expect(settle(() => 7, requestStop(cancelled.signal, deadline))).resolves.toEqual({ kind: 'aborted' });
    await expect(settle(() => Promise.resolve(8), requestStop(undefined, deadline))).resolves.toEqual({
      kind: 'value',
      value: 8,
    });
  });

  it('SPEC §5 a read whose control answers at once leaves no timer behind and still gets its receipt', async () => {
    const { host } = terminal();
    receiptOf(await host.handle(request(call('chart.getVisibleRange', CHART, []))));
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

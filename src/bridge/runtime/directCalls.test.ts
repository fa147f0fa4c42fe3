import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Target } from '../../protocol/index.js';
import { errorOf, receiptOf } from '../../sdk/testing/expect.js';
import {
  CHART,
  SESSION,
  call,
  chartController,
  chartImpl,
  order,
  owned,
  request as sdkRequest,
  terminal,
} from '../../sdk/testing/fixtures.js';
import type { SessionRequest, TerminalHost } from '../../sdk/types.js';
import { LazyAbort } from '../relay/lazyAbort.js';
import { directCalls } from './directCalls.js';

const request = { id: 'r1', op: { kind: 'context', target: { scope: 'session' } } } as unknown as SessionRequest;

describe('SPEC §1 §3 a session’s requests run in the host SDK on the page’s own thread', () => {
  it('the SDK’s answer is the outcome; its progress reaches the caller; its throw is an internal_error outcome, not a rejection', async () => {
    const reports: Array<[number, number | undefined]> = [];
    const answering = directCalls({
      handle: (_request, hooks) => {
        hooks?.progress?.(1, 2);
        return Promise.resolve({ ok: true, data: 'answered' });
      },
    });
    const outcome = await answering.handle(request, { progress: (p, t) => reports.push([p, t]) });
    expect(outcome).toEqual({ ok: true, data: 'answered' });
    expect(reports).toEqual([[1, 2]]);
    const throwing = directCalls({ handle: () => Promise.reject(new Error('host bug')) });
    const failed = await throwing.handle(request);
    expect(failed.ok === false && failed.error.code).toBe('internal_error');
  });

  it('the caller’s hooks reach the SDK as they are: no wrapper, and nothing reads their signal', async () => {
    let reads = 0;
    const hooks = {
      get signal() {
        reads++;
        return new AbortController().signal;
      },
      onAbort: () => undefined,
    };
    let seen: unknown;
    await directCalls({
      handle: (_request, sdkHooks) => {
        seen = sdkHooks;
        return Promise.resolve({ ok: true, data: null });
      },
    }).handle(request, hooks);
    expect(seen).toBe(hooks);
    expect(reads).toBe(0);
  });
});

/** The relay's hooks of one request (a LazyAbort, as InFlight is), counting the signals it made. */
class CountedAbort extends LazyAbort {
  signalsMade = 0;
  readonly progress = (): void => undefined;
  override get signal(): AbortSignal {
    this.signalsMade += 1;
    return super.signal;
  }
}

function hanging(host: TerminalHost, chartId: string, seen: { signal?: AbortSignal }): Target {
  const target = { scope: 'chart', chartId } as const;
  host.registerTarget(target, { label: chartId });
  host.mount(target, chartController, {
    ...chartImpl(),
    getVisibleRange: (ctx) => {
      seen.signal = ctx.signal;
      return new Promise(() => undefined);
    },
  });
  return target;
}

describe('SPEC §5 §6 cancel and deadline reach the host SDK through the relay’s onAbort, no signal per call (issue 15)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a read answered at once makes no signal, no timer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { host } = terminal();
    const hooks = new CountedAbort();
    receiptOf(await directCalls(host).handle(sdkRequest(call('chart.getVisibleRange', CHART, [])), hooks));
    expect(hooks.signalsMade).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a cancel during a read whose control reads its signal abandons the read and aborts that signal', async () => {
    const { host } = terminal();
    const seen: { signal?: AbortSignal } = {};
    const target = hanging(host, 'slow', seen);
    const hooks = new CountedAbort();
    const pending = directCalls(host).handle(sdkRequest(call('chart.getVisibleRange', target, [])), hooks);
    await Promise.resolve();
    expect(seen.signal?.aborted).toBe(false);
    hooks.abort(new Error('The MCP client cancelled this request.'));
    expect(errorOf(await pending).code).toBe('control_failed');
    expect(seen.signal?.aborted).toBe(true);
    expect(hooks.signalsMade).toBe(0);
  });

  it('a read that does not answer is abandoned at the deadline, and its control’s signal aborts', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { host } = terminal();
    const seen: { signal?: AbortSignal } = {};
    const target = hanging(host, 'late', seen);
    const hooks = new CountedAbort();
    const pending = directCalls(host).handle(
      sdkRequest(call('chart.getVisibleRange', target, []), { deadlineMs: 500 }),
      hooks,
    );
    await vi.advanceTimersByTimeAsync(499);
    expect(seen.signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(errorOf(await pending).code).toBe('control_failed');
    expect(seen.signal?.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(hooks.signalsMade).toBe(0);
  });

  it('a mutation cancelled before dispatch is not run; one cancelled after dispatch runs to its outcome', async () => {
    const { host, broker } = terminal();
    const before = new CountedAbort();
    const early = call('orders.placeOrder', SESSION, [order('CO-early')], owned('op-early'));
    const refused = directCalls(host).handle(sdkRequest(early), before);
    before.abort(new Error('The MCP client cancelled this request.'));
    expect(errorOf(await refused).code).toBe('control_failed');
    expect(broker.placeCalls).toBe(0);
    const after = new CountedAbort();
    const place = broker.place.bind(broker);
    // The client cancels while the broker handles the order: dispatched, so it runs on.
    broker.place = (placed, options) => {
      after.abort(new Error('The MCP client cancelled this request.'));
      return place(placed, options);
    };
    const late = call('orders.placeOrder', SESSION, [order('CO-late')], owned('op-late'));
    const receipt = receiptOf(await directCalls(host).handle(sdkRequest(late), after));
    expect(receipt.result).toMatchObject({ clientOrderId: 'CO-late' });
    expect(broker.placeCalls).toBe(1);
    expect(before.signalsMade + after.signalsMade).toBe(0);
  });
});

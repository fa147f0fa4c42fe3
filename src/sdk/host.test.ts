import { describe, expect, it } from 'vitest';
import { CatalogSchema } from '../protocol/index.js';
import { createTerminalHost } from './host.js';
import {
  CHART,
  SESSION,
  call,
  chartController,
  chartImpl,
  order,
  ordersController,
  owned,
  request,
  terminal,
} from './testing/fixtures.js';
import { errorOf, receiptOf } from './testing/expect.js';
import type { ActivityEntry, SessionRequest } from './types.js';

describe('host: targets and mounts', () => {
  it('starts with the write grant (SPEC §2) and refuses an unknown grant', () => {
    const host = createTerminalHost({ environment: 'paper' });
    expect(host.grant).toBe('write');
    expect(() => {
      host.grant = 'admin' as never;
    }).toThrow();
  });

  it('refuses mounting on an unregistered target, on the wrong scope, or twice', () => {
    const host = createTerminalHost({ environment: 'live' });
    expect(() => host.mount(CHART, chartController, chartImpl())).toThrow(/not registered/);
    expect(() => host.mount(SESSION, chartController, chartImpl())).toThrow(/cannot be mounted/);
    host.registerTarget(CHART, { label: 'c1' });
    host.mount(CHART, chartController, chartImpl());
    expect(() => host.mount(CHART, chartController, chartImpl())).toThrow(/already mounted/);
    expect(() => host.registerTarget(CHART, { label: 'again' })).toThrow(/already registered/);
  });

  it('unmount makes its controls not-mounted', async () => {
    const { host, chart } = terminal();
    chart.unmount();
    const error = errorOf(await host.handle(request(call('chart.getVisibleRange', CHART, []))));
    expect(error).toMatchObject({ code: 'control_unavailable', details: { reason: 'not-mounted' } });
  });
});

describe('host: catalog and activity', () => {
  it('the catalog describes every declared controller, mounted or not, and the built-in channels', () => {
    const host = createTerminalHost({ environment: 'paper', controllers: [ordersController] });
    const catalog = CatalogSchema.parse(host.catalog());
    expect(catalog.controls.map((c) => c.controlId)).toContain('orders.placeOrder');
    expect(catalog.channels.map((c) => c.channelId)).toEqual(['data.quotes', 'trading.events']);
    const place = catalog.controls.find((c) => c.controlId === 'orders.placeOrder');
    expect(place).toMatchObject({ risk: 'financial', accessClass: 'trade', mutation: true, operationOptionsIndex: 1 });
  });

  it('onActivity gets one entry per call, without argument values', async () => {
    const { host } = terminal();
    const entries: ActivityEntry[] = [];
    const stop = host.onActivity((e) => entries.push(e));
    await host.handle(request(call('orders.placeOrder', SESSION, [order('SECRETCLIENTID')], owned('act-1'))));
    await host.handle(request(call('chart.nothing', CHART, [])));
    stop();
    await host.handle(request(call('chart.getVisibleRange', CHART, [])));
    expect(entries.map((e) => [e.controlId, e.outcome, e.clientName])).toEqual([
      ['orders.placeOrder', 'ok', 'test-client'],
      ['chart.nothing', 'control_not_found', 'test-client'],
    ]);
    expect(JSON.stringify(entries)).not.toContain('SECRETCLIENTID');
  });

  it('handle never throws: a defect is internal_error', async () => {
    const { host } = terminal();
    const broken = {
      ...request(call('chart.getVisibleRange', CHART, [])),
      op: { kind: 'call', call: null },
    } as unknown as SessionRequest;
    expect(errorOf(await host.handle(broken)).code).toBe('internal_error');
    const foreign = request({ kind: 'snapshot', target: CHART, format: 'png' } as unknown as SessionRequest['op']);
    expect(errorOf(await host.handle(foreign)).code).toBe('internal_error');
  });
});

describe('SPEC §5 page confirmation of trade-class calls', () => {
  it('a confirmed trade runs; the person sees the control and client, never a server prompt', async () => {
    const asked: string[] = [];
    const { host, broker } = terminal({
      confirm: (r) => {
        asked.push(`${r.controlId}:${r.clientName}`);
        return Promise.resolve(true);
      },
    });
    receiptOf(await host.handle(request(call('orders.placeOrder', SESSION, [order()], owned('cf-1')))));
    receiptOf(await host.handle(request(call('chart.getVisibleRange', CHART, []))));
    expect(asked).toEqual(['orders.placeOrder:test-client']);
    expect(broker.placeCalls).toBe(1);
  });

  it('a declined trade is execution_declined, nothing is recorded, and the same id may run later', async () => {
    let answer = false;
    const { host, broker } = terminal({ confirm: () => Promise.resolve(answer) });
    const op = call('orders.placeOrder', SESSION, [order()], owned('cf-2'));
    expect(errorOf(await host.handle(request(op)))).toMatchObject({
      code: 'execution_declined',
      retry: 'after_user_action',
    });
    expect(broker.placeCalls).toBe(0);
    answer = true;
    receiptOf(await host.handle(request(op)));
    expect(broker.placeCalls).toBe(1);
  });

  it('an unanswered confirmation times out as execution_declined and a late answer is ignored', async () => {
    let late!: (value: boolean) => void;
    let seen: AbortSignal | undefined;
    const { host, broker } = terminal({
      confirmationTimeoutMs: 30,
      confirm: ({ signal }) => {
        seen = signal;
        return new Promise((resolve) => (late = resolve));
      },
    });
    const error = errorOf(await host.handle(request(call('orders.placeOrder', SESSION, [order()], owned('cf-3')))));
    expect(error.code).toBe('execution_declined');
    expect(seen?.aborted).toBe(true);
    late(true);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(broker.placeCalls).toBe(0);
  });
});

describe('host: call marks for bench/tailCalls.mjs', () => {
  const flagged = globalThis as { __tradescriptPhaseMarks?: unknown };

  it('SPEC §12 marks a call’s start and end on the page only while a bench asked for marks', async () => {
    const { host } = terminal();
    const read = request(call('chart.getVisibleRange', CHART, []));
    try {
      await host.handle(read);
      expect(performance.getEntriesByName('ts:call.handle', 'mark')).toHaveLength(0);
      flagged.__tradescriptPhaseMarks = true;
      receiptOf(await host.handle(read));
      const [start] = performance.getEntriesByName('ts:call.handle', 'mark');
      const [end] = performance.getEntriesByName('ts:call.handled', 'mark');
      expect(end!.startTime).toBeGreaterThanOrEqual(start!.startTime);
    } finally {
      delete flagged.__tradescriptPhaseMarks;
      performance.clearMarks();
    }
  });
});

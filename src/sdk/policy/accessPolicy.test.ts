import { describe, expect, it } from 'vitest';
import { ListControlsDataSchema, type ListControlsData, type Target } from '../../protocol/index.js';
import type { ListRequest } from '../declare/listing.js';
import {
  CHART,
  SESSION,
  call,
  chartController,
  chartImpl,
  order,
  owned,
  request,
  terminal,
} from '../testing/fixtures.js';
import { dataOf, errorOf, receiptOf } from '../testing/expect.js';
import type { TerminalHost } from '../types.js';

async function list(
  host: TerminalHost,
  input: ListRequest,
  adapter = request({ kind: 'context', target: SESSION }).adapter,
) {
  const out = await host.handle(request({ kind: 'listControls', input }, { adapter }));
  return ListControlsDataSchema.parse(dataOf(out));
}

function reasons(data: ListControlsData): Record<string, string> {
  return Object.fromEntries(data.unavailableControls.map((u) => [u.control, u.reason]));
}

const C2: Target = { scope: 'chart', chartId: 'c2' };

describe('SPEC §5 effective policy: each layer writes its own reason', () => {
  it('adapter-maximum: trade controls without --enable-trading are listed unavailable and calls are execution_disabled', async () => {
    const { host, broker } = terminal();
    const adapter = { maxAccess: 'write' as const, allowControls: null };
    const data = await list(host, { target: SESSION }, adapter);
    expect(reasons(data)['orders.placeOrder']).toBe('adapter-maximum');
    expect(data.controls.map((c) => c.controlId)).toEqual(['orders.listOrders']);
    const error = errorOf(
      await host.handle(request(call('orders.placeOrder', SESSION, [order()], owned('p')), { adapter })),
    );
    expect(error).toMatchObject({ code: 'execution_disabled', retry: 'never' });
    expect(broker.placeCalls).toBe(0);
  });

  it('adapter-maximum: --allow-controls narrows which trade controls are enabled', async () => {
    const { host } = terminal();
    const adapter = { maxAccess: 'trade' as const, allowControls: ['orders.cancelOrder'] };
    const data = await list(host, { target: SESSION }, adapter);
    expect(data.controls.map((c) => c.controlId)).toEqual(['orders.cancelOrder', 'orders.listOrders']);
    expect(reasons(data)).toEqual({ 'orders.deleteAlerts': 'adapter-maximum', 'orders.placeOrder': 'adapter-maximum' });
  });

  it('adapter-maximum on a write control is control_unavailable with details.reason', async () => {
    const { host } = terminal();
    const adapter = { maxAccess: 'read' as const, allowControls: null };
    const out = await host.handle(
      request(call('chart.setVisibleRange', CHART, [{ from: 1, to: 2 }], { expectedRevisions: { viewport: 0 } }), {
        adapter,
      }),
    );
    expect(errorOf(out)).toMatchObject({ code: 'control_unavailable', details: { reason: 'adapter-maximum' } });
  });

  it('not-mounted: a registered target without the controller, or a mount missing a method', async () => {
    const { host } = terminal();
    host.registerTarget(C2, { label: 'c2' });
    const bare = await list(host, { target: C2 });
    expect(bare.controls).toEqual([]);
    expect(new Set(Object.values(reasons(bare)))).toEqual(new Set(['not-mounted']));
    const c3: Target = { scope: 'chart', chartId: 'c3' };
    host.registerTarget(c3, { label: 'c3' });
    const { addDrawing: _missing, ...partial } = chartImpl();
    host.mount(c3, chartController, partial as ReturnType<typeof chartImpl>);
    const data = await list(host, { target: c3 });
    expect(data.unavailableControls).toEqual([
      {
        control: 'chart.addDrawing',
        reason: 'not-mounted',
        detail: 'The mounted controller does not implement this method.',
      },
    ]);
    const error = errorOf(
      await host.handle(
        request(call('chart.addDrawing', c3, [{ kind: 'line', label: 'x' }], { expectedRevisions: { drawings: 0 } })),
      ),
    );
    expect(error).toMatchObject({ code: 'control_unavailable', details: { reason: 'not-mounted' } });
  });

  it('surface-policy: the registration ceiling and deny patterns, with the host detail', async () => {
    const { host } = terminal();
    host.registerTarget(C2, { label: 'c2', surfacePolicy: { maxAccess: 'read', detail: 'Read-only chart.' } });
    host.mount(C2, chartController, chartImpl());
    const data = await list(host, { target: C2 });
    expect(data.controls.map((c) => c.controlId)).toEqual(['chart.exportBars', 'chart.getVisibleRange']);
    expect(data.unavailableControls[0]).toEqual({
      control: 'chart.addDrawing',
      reason: 'surface-policy',
      detail: 'Read-only chart.',
    });
    const c3: Target = { scope: 'chart', chartId: 'c3' };
    host.registerTarget(c3, { label: 'c3', surfacePolicy: { deny: ['chart.annotate'] } });
    host.mount(c3, chartController, chartImpl());
    expect(reasons(await list(host, { target: c3 }))).toEqual({ 'chart.annotate': 'surface-policy' });
  });

  it('attachment-grant: the person grant narrows, and a change applies to the next call', async () => {
    const { host, broker } = terminal({ grant: 'read' });
    const data = await list(host, { target: SESSION });
    expect(reasons(data)['orders.placeOrder']).toBe('attachment-grant');
    const op = call('orders.placeOrder', SESSION, [order()], owned('g1'));
    expect(errorOf(await host.handle(request(op)))).toMatchObject({
      code: 'control_unavailable',
      retry: 'after_user_action',
      details: { reason: 'attachment-grant' },
    });
    host.grant = 'trade';
    receiptOf(await host.handle(request(op)));
    expect(broker.placeCalls).toBe(1);
  });

  it('execution-environment and unclassified come from the mount availability', async () => {
    const { host } = terminal();
    host.registerTarget(C2, { label: 'c2' });
    host.mount(C2, chartController, chartImpl(), {
      availability: (method) =>
        method === 'annotate'
          ? { reason: 'execution-environment', detail: 'Not supported on the live broker.' }
          : method === 'exportBars'
            ? { detail: 'Unsupported.' }
            : method === 'addDrawing'
              ? { reason: 'surface-policy' }
              : true,
    });
    const data = await list(host, { target: C2 });
    expect(data.unavailableControls).toEqual([
      { control: 'chart.addDrawing', reason: 'surface-policy' },
      { control: 'chart.annotate', reason: 'execution-environment', detail: 'Not supported on the live broker.' },
    ]);
    expect(data.unclassifiedControls).toEqual([{ control: 'chart.exportBars', detail: 'Unsupported.' }]);
    expect(data.unclassifiedTotal).toBe(1);
    const error = errorOf(await host.handle(request(call('chart.annotate', C2, [1]))));
    expect(error).toMatchObject({ code: 'control_unavailable', details: { reason: 'execution-environment' } });
    expect(errorOf(await host.handle(request(call('chart.exportBars', C2, [1])))).code).toBe('control_unavailable');
  });

  it('the first failing layer is the reason: adapter-maximum before not-mounted before attachment-grant', async () => {
    const { host } = terminal({ grant: 'read' });
    host.registerTarget(C2, { label: 'c2' });
    const data = await list(host, { target: C2 }, { maxAccess: 'read', allowControls: null });
    expect(reasons(data)['chart.setVisibleRange']).toBe('adapter-maximum');
    expect(reasons(data)['chart.getVisibleRange']).toBe('not-mounted');
  });
});

describe('SPEC §3 list_controls: filters, paging, ledgers', () => {
  it('is never a union across targets', async () => {
    const { host } = terminal();
    const session = await list(host, { target: SESSION });
    const chart = await list(host, { target: CHART });
    expect(session.controls.every((c) => c.controller === 'orders')).toBe(true);
    expect(chart.controls.every((c) => c.controller === 'chart')).toBe(true);
    expect(session.target).toEqual(SESSION);
  });

  it('filters by controller, accessClass, family, permission and mutation', async () => {
    const { host } = terminal();
    const ids = async (input: ListRequest) => (await list(host, input)).controls.map((c) => c.controlId);
    expect(await ids({ target: CHART, mutation: false })).toEqual(['chart.exportBars', 'chart.getVisibleRange']);
    expect(await ids({ target: CHART, family: 'chart.viewport' })).toEqual([
      'chart.getVisibleRange',
      'chart.setVisibleRange',
    ]);
    expect(await ids({ target: SESSION, accessClass: 'trade', permission: 'orders.trade' })).toEqual([
      'orders.cancelOrder',
      'orders.placeOrder',
    ]);
    expect(await ids({ target: CHART, controller: 'orders' })).toEqual([]);
  });

  it('pages with a stable opaque cursor and a limit', async () => {
    const { host } = terminal();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await list(host, { target: CHART, limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.total).toBe(5);
      seen.push(...page.controls.map((c) => c.controlId));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...new Set(seen)].sort());
    expect(seen).toHaveLength(5);
  });

  it('an invalid cursor, or one from another query, is invalid_input at ["cursor"]', async () => {
    const { host } = terminal();
    const bad = errorOf(
      await host.handle(request({ kind: 'listControls', input: { target: CHART, cursor: 'not-a-cursor' } })),
    );
    expect(bad.code).toBe('invalid_input');
    expect(bad.validation_errors[0]?.path).toEqual(['cursor']);
    const first = await list(host, { target: CHART, limit: 1 });
    const other = await host.handle(
      request({ kind: 'listControls', input: { target: CHART, mutation: true, cursor: first.nextCursor ?? '' } }),
    );
    expect(errorOf(other).validation_errors[0]?.path).toEqual(['cursor']);
  });

  it('unavailableLimit bounds each ledger with its own total and truncation flag', async () => {
    const { host } = terminal({ grant: 'read' });
    const data = await list(host, { target: CHART, unavailableLimit: 1 });
    expect(data.unavailableControls).toHaveLength(1);
    expect(data.unavailableTotal).toBe(3);
    expect(data.unavailableTruncated).toBe(true);
    expect(data.unclassifiedTruncated).toBe(false);
  });

  it('an unknown target is target_not_found', async () => {
    const { host } = terminal();
    expect(errorOf(await host.handle(request({ kind: 'listControls', input: { target: C2 } }))).code).toBe(
      'target_not_found',
    );
  });
});

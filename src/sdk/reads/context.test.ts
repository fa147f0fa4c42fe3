import { describe, expect, it } from 'vitest';
import { ContextDataSchema, type Target } from '../../protocol/index.js';
import { CHART, SESSION, call, request, terminal } from '../testing/fixtures.js';
import { dataOf, errorOf, receiptOf } from '../testing/expect.js';
import type { TerminalHost } from '../types.js';

async function context(
  host: TerminalHost,
  target: Target,
  adapter = { maxAccess: 'write' as const, allowControls: null },
) {
  return ContextDataSchema.parse(dataOf(await host.handle(request({ kind: 'context', target }, { adapter }))));
}

describe('SPEC §3 get_context', () => {
  it('reads one target: label, merged state, capabilities, revisions, environment and access', async () => {
    const { host } = terminal({ grant: 'trade' });
    const data = await context(host, CHART);
    expect(data).toMatchObject({
      sessionId: 's1',
      target: CHART,
      label: 'BTCUSDT · 1m',
      state: { symbol: 'BTCUSDT', chart: { from: 0, to: 100 } },
      capabilities: { controllers: ['chart'], renderable: false, channels: [] },
      controllerRevisions: { chart: { viewport: 0, drawings: 0 } },
      availableSubscriptions: [],
      environment: 'paper',
      access: { grant: 'trade', adapterMaximum: 'write', effective: 'write' },
    });
  });

  it('lists every registered target with its controllers as the routing authority', async () => {
    const { host } = terminal();
    const widget: Target = { scope: 'widget', widgetId: 'w1' };
    const handle = host.registerTarget(widget, { label: 'Blotter' });
    const data = await context(host, SESSION);
    expect(data.availableTargets).toEqual([
      { target: SESSION, label: 'Session', controllers: ['orders'], renderable: false },
      { target: CHART, label: 'BTCUSDT · 1m', controllers: ['chart'], renderable: false },
      { target: widget, label: 'Blotter', controllers: [], renderable: false },
    ]);
    handle.unregister();
    expect((await context(host, SESSION)).availableTargets.map((t) => t.label)).toEqual(['Session', 'BTCUSDT · 1m']);
    expect(errorOf(await host.handle(request({ kind: 'context', target: widget }))).code).toBe('target_not_found');
  });

  it('SPEC §5 revisions bumped by the page (a person dragging the chart) show in context', async () => {
    const { host, chart } = terminal();
    chart.revisions.bump('viewport');
    chart.revisions.bump('viewport');
    expect((await context(host, CHART)).controllerRevisions).toEqual({ chart: { viewport: 2, drawings: 0 } });
  });

  it('SPEC §5 revisions never go back when a target is unregistered and registered again', async () => {
    const { host } = terminal();
    const c9: Target = { scope: 'chart', chartId: 'c9' };
    const { chartController, chartImpl } = await import('../testing/fixtures.js');
    const first = host.registerTarget(c9, { label: 'c9' });
    host.mount(c9, chartController, chartImpl());
    receiptOf(
      await host.handle(
        request(call('chart.setVisibleRange', c9, [{ from: 1, to: 2 }], { expectedRevisions: { viewport: 0 } })),
      ),
    );
    first.unregister();
    host.registerTarget(c9, { label: 'c9 again' });
    host.mount(c9, chartController, chartImpl());
    expect((await context(host, c9)).controllerRevisions).toEqual({ chart: { viewport: 1, drawings: 0 } });
    const stale = await host.handle(
      request(call('chart.setVisibleRange', c9, [{ from: 1, to: 2 }], { expectedRevisions: { viewport: 0 } })),
    );
    expect(errorOf(stale).code).toBe('revision_conflict');
  });

  it('SPEC §4 broker text in state is redacted', async () => {
    const { host } = terminal();
    const w: Target = { scope: 'widget', widgetId: 'blotter' };
    host.registerTarget(w, {
      label: 'Blotter',
      state: () => ({ lastReject: '  Rejected:\n\n  insufficient   margin ' }),
    });
    expect((await context(host, w)).state).toEqual({ lastReject: 'Rejected: insufficient margin' });
  });

  it('a state getter that throws is internal_error, not a throw', async () => {
    const { host } = terminal();
    const w: Target = { scope: 'widget', widgetId: 'broken' };
    host.registerTarget(w, {
      label: 'Broken',
      state: () => {
        throw new Error('boom');
      },
    });
    expect(errorOf(await host.handle(request({ kind: 'context', target: w }))).code).toBe('internal_error');
  });
});

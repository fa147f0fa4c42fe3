import { describe, expect, it } from 'vitest';
import { CHART, SESSION, call, order, owned, request, terminal } from '../testing/fixtures.js';
import { errorOf, receiptOf } from '../testing/expect.js';

describe('dispatcher: validation', () => {
  it('SPEC §5 an unknown target is target_not_found', async () => {
    const { host } = terminal();
    const out = await host.handle(request(call('chart.getVisibleRange', { scope: 'chart', chartId: 'nope' }, [])));
    expect(errorOf(out).code).toBe('target_not_found');
  });

  it('SPEC §5 an unknown control, or one for another scope, is control_not_found', async () => {
    const { host } = terminal();
    expect(errorOf(await host.handle(request(call('chart.nothing', CHART, [])))).code).toBe('control_not_found');
    expect(errorOf(await host.handle(request(call('orders.listOrders', CHART, [])))).code).toBe('control_not_found');
    expect(errorOf(await host.handle(request(call('toString', CHART, [])))).code).toBe('control_not_found');
    expect(errorOf(await host.handle(request(call('chart.constructor', CHART, [])))).code).toBe('control_not_found');
  });

  it('SPEC §6 more positional arguments than callArgs is limit_exceeded', async () => {
    const { host } = terminal();
    const args = Array.from({ length: 17 }, () => 1);
    const error = errorOf(await host.handle(request(call('chart.setVisibleRange', CHART, args))));
    expect(error.code).toBe('limit_exceeded');
    expect(error.details).toEqual({ limit: 'callArgs', max: 16 });
  });

  it('SPEC §4 more arguments than the signature is invalid_input at ["args"]', async () => {
    const { host } = terminal();
    const error = errorOf(await host.handle(request(call('chart.getVisibleRange', CHART, [1]))));
    expect(error.code).toBe('invalid_input');
    expect(error.validation_errors.map((i) => i.path)).toEqual([['args']]);
  });

  it('SPEC §4 a control argument schema failure points into args and never echoes submitted values', async () => {
    const { host, chartState } = terminal();
    const secretish = 'SUBMITTED-VALUE-XYZZY';
    const out = await host.handle(
      request(
        call('chart.addDrawing', CHART, [{ kind: secretish, label: 7654321, [secretish]: secretish }], {
          expectedRevisions: { drawings: 0 },
        }),
      ),
    );
    const error = errorOf(out);
    expect(error.code).toBe('invalid_input');
    expect(error.retry).toBe('after_correction');
    const paths = error.validation_errors.map((i) => JSON.stringify(i.path));
    expect(paths).toContain(JSON.stringify(['args', 0, 'kind']));
    expect(paths).toContain(JSON.stringify(['args', 0, 'label']));
    expect(paths).toContain(JSON.stringify(['args', 0]));
    expect(JSON.stringify(out)).not.toContain(secretish);
    expect(JSON.stringify(out)).not.toContain('7654321');
    expect(chartState).toEqual({ from: 0, to: 100 });
  });

  it('SPEC §4 a missing required argument is reported at its index', async () => {
    const { host } = terminal();
    const error = errorOf(
      await host.handle(request(call('chart.setVisibleRange', CHART, [], { expectedRevisions: { viewport: 0 } }))),
    );
    expect(error.validation_errors[0]).toMatchObject({ path: ['args', 0], code: 'required' });
  });
});

describe('dispatcher: revisions', () => {
  it('SPEC §5 a mutation with declared domains needs expectedRevisions (invalid_input at ["expectedRevisions"])', async () => {
    const { host, chartState } = terminal();
    const error = errorOf(await host.handle(request(call('chart.setVisibleRange', CHART, [{ from: 1, to: 2 }]))));
    expect(error.code).toBe('invalid_input');
    expect(error.validation_errors[0]?.path).toEqual(['expectedRevisions']);
    expect(chartState.from).toBe(0);
  });

  it('SPEC §5 an undeclared revision domain is invalid_input, without echoing its name', async () => {
    const { host } = terminal();
    const out = await host.handle(
      request(
        call('chart.setVisibleRange', CHART, [{ from: 1, to: 2 }], { expectedRevisions: { viewport: 0, ZZdomain: 1 } }),
      ),
    );
    const error = errorOf(out);
    expect(error.code).toBe('invalid_input');
    expect(error.validation_errors[0]?.path).toEqual(['expectedRevisions']);
    expect(JSON.stringify(out)).not.toContain('ZZdomain');
  });

  it('SPEC §5 revision_conflict returns current values and runs nothing', async () => {
    const { host, chart, chartState } = terminal();
    chart.revisions.bump('viewport'); // the person dragged the chart
    const error = errorOf(
      await host.handle(
        request(call('chart.setVisibleRange', CHART, [{ from: 5, to: 6 }], { expectedRevisions: { viewport: 0 } })),
      ),
    );
    expect(error.code).toBe('revision_conflict');
    expect(error.retry).toBe('after_reread');
    expect(error.details).toEqual({ current: { viewport: 1 } });
    expect(chartState).toEqual({ from: 0, to: 100 });
  });

  it('SPEC §5 a successful mutation carries revisions before and after of its declared domains', async () => {
    const { host, chartState } = terminal();
    const receipt = receiptOf(
      await host.handle(
        request(call('chart.setVisibleRange', CHART, [{ from: 5, to: 6 }], { expectedRevisions: { viewport: 0 } })),
      ),
    );
    expect(receipt).toMatchObject({
      origin: 'mcp',
      controlId: 'chart.setVisibleRange',
      target: CHART,
      mutation: true,
      revisionsBefore: { viewport: 0 },
      revisionsAfter: { viewport: 1 },
      result: { from: 5, to: 6 },
    });
    expect(chartState).toEqual({ from: 5, to: 6 });
  });

  it('SPEC §5 a control that bumps its own domain is not bumped twice', async () => {
    const { host } = terminal();
    host.registerTarget({ scope: 'chart', chartId: 'c2' }, { label: 'c2' });
    const { chartController } = await import('../testing/fixtures.js');
    const { chartImpl } = await import('../testing/fixtures.js');
    const impl = chartImpl();
    host.mount({ scope: 'chart', chartId: 'c2' }, chartController, {
      ...impl,
      setVisibleRange: (ctx, range) => {
        ctx.revisions.bump('viewport');
        return range;
      },
    });
    const receipt = receiptOf(
      await host.handle(
        request(
          call('chart.setVisibleRange', { scope: 'chart', chartId: 'c2' }, [{ from: 1, to: 2 }], {
            expectedRevisions: { viewport: 0 },
          }),
        ),
      ),
    );
    expect(receipt.revisionsAfter).toEqual({ viewport: 1 });
  });

  it('SPEC §5 two concurrent mutations with the same expected revision: only one runs', async () => {
    const { host, chartState } = terminal();
    const a = host.handle(
      request(call('chart.setVisibleRange', CHART, [{ from: 1, to: 2 }], { expectedRevisions: { viewport: 0 } })),
    );
    const b = host.handle(
      request(call('chart.setVisibleRange', CHART, [{ from: 3, to: 4 }], { expectedRevisions: { viewport: 0 } })),
    );
    const outcomes = await Promise.all([a, b]);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(errorOf(outcomes[1]!).code).toBe('revision_conflict');
    expect(chartState).toEqual({ from: 1, to: 2 });
  });
});

describe('dispatcher: operation identity', () => {
  it('SPEC §5 byte-equivalent reuse returns the recorded receipt without dispatching', async () => {
    const { host, broker } = terminal();
    const op = call('orders.placeOrder', SESSION, [order()], owned('op-1'));
    const first = receiptOf(await host.handle(request(op)));
    const second = receiptOf(await host.handle(request(op)));
    expect(broker.placeCalls).toBe(1);
    expect(second).toEqual(first);
  });

  it('SPEC §5 a faithful retry after success never gets revision_conflict', async () => {
    const { host, chartState } = terminal();
    const op = call('chart.setVisibleRange', CHART, [{ from: 7, to: 8 }], {
      expectedRevisions: { viewport: 0 },
      ...owned('vr-1'),
    });
    const first = receiptOf(await host.handle(request(op)));
    chartState.from = 99;
    const again = receiptOf(await host.handle(request(op)));
    expect(again).toEqual(first);
    expect(chartState.from).toBe(99);
  });

  it('SPEC §5 a different request under the same id is operation_id_conflict', async () => {
    const { host, broker } = terminal();
    await host.handle(request(call('orders.placeOrder', SESSION, [order('CO1')], owned('op-1'))));
    const error = errorOf(
      await host.handle(request(call('orders.placeOrder', SESSION, [order('CO2')], owned('op-1')))),
    );
    expect(error.code).toBe('operation_id_conflict');
    expect(error.retry).toBe('after_correction');
    expect(broker.placeCalls).toBe(1);
  });

  it('SPEC §5 byte-equivalence is canonical JSON: key order does not matter', async () => {
    const { host, broker } = terminal();
    const o = order();
    const reordered = {
      clientOrderId: o.clientOrderId,
      quantity: o.quantity,
      side: o.side,
      symbol: o.symbol,
      accountId: o.accountId,
    };
    await host.handle(request(call('orders.placeOrder', SESSION, [o], owned('op-1'))));
    receiptOf(await host.handle(request(call('orders.placeOrder', SESSION, [reordered], owned('op-1')))));
    expect(broker.placeCalls).toBe(1);
  });

  it('SPEC §5 two namespaces never share evidence', async () => {
    const { host, broker } = terminal();
    const op = call('orders.placeOrder', SESSION, [order('CO1')], owned('same-id'));
    const other = { attachmentId: 'a2', namespace: 'ns2', clientName: 'other' };
    receiptOf(await host.handle(request(op)));
    receiptOf(
      await host.handle(
        request(call('orders.placeOrder', SESSION, [order('CO2')], owned('same-id')), { attachment: other }),
      ),
    );
    expect(broker.placeCalls).toBe(2);
  });

  it('SPEC §5 a second call with the same key while the first runs waits for its outcome', async () => {
    const { host, broker } = terminal();
    const op = call('orders.placeOrder', SESSION, [order()], owned('op-1'));
    const [a, b] = await Promise.all([host.handle(request(op)), host.handle(request(op))]);
    expect(broker.placeCalls).toBe(1);
    expect(receiptOf(b)).toEqual(receiptOf(a));
  });

  it('SPEC §5 a different call under the same key while the first runs is operation_id_conflict', async () => {
    const { host, broker } = terminal();
    const [a, b] = await Promise.all([
      host.handle(request(call('orders.placeOrder', SESSION, [order('CO1')], owned('op-1')))),
      host.handle(request(call('orders.placeOrder', SESSION, [order('CO2')], owned('op-1')))),
    ]);
    expect(receiptOf(a)).toBeTruthy();
    expect(errorOf(b).code).toBe('operation_id_conflict');
    expect(broker.placeCalls).toBe(1);
  });

  it('SPEC §5 a financial control without a caller operation id is operation_id_required, before the broker', async () => {
    const { host, broker } = terminal();
    const error = errorOf(await host.handle(request(call('orders.placeOrder', SESSION, [order()]))));
    expect(error.code).toBe('operation_id_required');
    expect(broker.placeCalls).toBe(0);
  });

  it('SPEC §5 the operation id reaches the control through its options object and its context', async () => {
    const { host, broker } = terminal();
    await host.handle(request(call('orders.placeOrder', SESSION, [order(), { note: 'n' }], owned('op-9'))));
    await host.handle(request(call('orders.placeOrder', SESSION, [order('CO2')], owned('op-10'))));
    expect(broker.placedOptions).toEqual([{ note: 'n', operationId: 'op-9' }, { operationId: 'op-10' }]);
  });

  it('SPEC §5 a refusal before dispatch records nothing: the same id runs once the cause is fixed', async () => {
    const { host, broker } = terminal({ grant: 'write' });
    const op = call('orders.placeOrder', SESSION, [order()], owned('op-1'));
    expect(errorOf(await host.handle(request(op))).code).toBe('control_unavailable');
    host.grant = 'trade';
    receiptOf(await host.handle(request(op)));
    expect(broker.placeCalls).toBe(1);
  });

  it('SPEC §5 non-financial calls run with the generated id the server supplied', async () => {
    const { host } = terminal();
    const receipt = receiptOf(
      await host.handle(
        request(call('chart.getVisibleRange', CHART, [], { operationId: 'gen-x', callerOperationId: false })),
      ),
    );
    expect(receipt.operationId).toBe('gen-x');
    expect(receipt.mutation).toBe(false);
    expect(receipt.revisionsBefore).toEqual({ viewport: 0 });
  });
});

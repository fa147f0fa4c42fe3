import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonByteLength } from '../../protocol/index.js';
import { arg, control, declareController } from '../declare/declare.js';
import { CHART, call, defaultLimits, request, terminal } from '../testing/fixtures.js';
import { errorOf, receiptOf } from '../testing/expect.js';

const deep = (levels: number): unknown => (levels === 0 ? 'leaf' : { next: deep(levels - 1) });

const probeController = declareController({
  name: 'probe',
  targetScopes: ['session'],
  revisionDomains: [],
  controls: {
    read: control({
      description: 'Returns whatever it is given to return.',
      args: [arg('depth', z.number().int())],
      result: z.unknown(),
      accessClass: 'read',
      family: 'probe',
      permission: 'probe.read',
      risk: 'read',
      mutation: false,
    }),
    write: control({
      description: 'Returns whatever it is given to return.',
      args: [arg('depth', z.number().int())],
      result: z.unknown(),
      accessClass: 'write',
      family: 'probe',
      permission: 'probe.write',
      risk: 'write',
      mutation: true,
    }),
  },
});

function probeHost() {
  const t = terminal();
  t.host.mount({ scope: 'session' }, probeController, {
    read: (_ctx, depth) => deep(depth),
    write: (_ctx, depth) => deep(depth),
  });
  return t;
}

describe('SPEC §6 page-side limits', () => {
  it('a successful mutation whose result cannot fit keeps its evidence with result null and resultOmitted', async () => {
    const { host } = terminal();
    const limits = defaultLimits({ resultBytes: 32 * 1024 });
    const out = await host.handle(request(call('chart.annotate', CHART, [2000]), { limits }));
    const receipt = receiptOf(out);
    expect(receipt).toMatchObject({
      mutation: true,
      result: null,
      resultOmitted: { reason: 'result-too-large', limit: 'resultBytes' },
    });
    expect(receipt.operationId).toBeTruthy();
    expect(jsonByteLength(out)).toBeLessThan(limits.resultBytes);
  });

  it('a read whose result cannot fit is limit_exceeded with limit and max', async () => {
    const { host } = terminal();
    const limits = defaultLimits({ resultBytes: 32 * 1024 });
    const error = errorOf(await host.handle(request(call('chart.exportBars', CHART, [2000]), { limits })));
    expect(error).toMatchObject({
      code: 'limit_exceeded',
      retry: 'after_correction',
      details: { limit: 'resultBytes', max: 32 * 1024 },
    });
  });

  it('a read result nested too deep is limit_exceeded jsonDepth; a mutation keeps its receipt', async () => {
    const { host } = probeHost();
    const read = errorOf(await host.handle(request(call('probe.read', { scope: 'session' }, [40]))));
    expect(read.details).toEqual({ limit: 'jsonDepth', max: 24 });
    const shallow = receiptOf(await host.handle(request(call('probe.read', { scope: 'session' }, [3]))));
    expect(shallow.result).toEqual(deep(3));
    const write = receiptOf(await host.handle(request(call('probe.write', { scope: 'session' }, [40]))));
    expect(write.result).toBeNull();
    expect(write.resultOmitted).toEqual({ reason: 'result-too-large', limit: 'jsonDepth' });
  });

  it('SPEC §4 control results are redacted like broker text', async () => {
    const { host } = terminal();
    const c7 = { scope: 'chart', chartId: 'c7' } as const;
    host.registerTarget(c7, { label: 'c7' });
    const { chartController, chartImpl } = await import('../testing/fixtures.js');
    host.mount(c7, chartController, { ...chartImpl(), exportBars: () => [{ t: 1, note: ' broker \n said   no ' }] });
    const receipt = receiptOf(await host.handle(request(call('chart.exportBars', c7, [1]))));
    expect(receipt.result).toEqual([{ t: 1, note: 'broker said no' }]);
  });
});

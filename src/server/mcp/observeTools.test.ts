import { afterEach, describe, expect, test } from 'vitest';
import type { Operation } from '../../protocol/index.js';
import { callEnvelope, connectClient, sentOp as sentOpOf, type Harness } from '../testing/testHarness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const chart = { scope: 'chart', chartId: 'main' } as const;
const run = (name: string, args: Record<string, unknown>) => callEnvelope(harness!, name, args);
const sentOp = <K extends Operation['kind']>(index: number, kind: K) => sentOpOf(harness!, index, kind);

describe('snapshot and subscribe, once served', () => {
  test('SPEC §3 a snapshot returns the text envelope and then the image', async () => {
    harness = await connectClient({ tools: ['tradescript_snapshot'] });
    const { result, payload } = await run('tradescript_snapshot', {
      sessionId: 's-1',
      target: chart,
      format: 'webp',
      maxWidth: 640,
    });
    expect(sentOp(0, 'snapshot')).toEqual({ kind: 'snapshot', target: chart, format: 'webp', maxWidth: 640 });
    expect(result.content).toEqual([
      expect.objectContaining({ type: 'text' }),
      { type: 'image', data: 'iVBORw==', mimeType: 'image/webp' },
    ]);
    expect(payload.data).toMatchObject({ mimeType: 'image/webp', scaled: false });
  });

  test('SPEC §7 poll and stop are routed to the session that started the subscription', async () => {
    harness = await connectClient({ tools: ['tradescript_subscribe'] });
    const bindings = [{ channelId: 'data.quotes', bindingId: 'b1', options: { symbols: ['X'] } }];
    await run('tradescript_subscribe', { action: 'start', sessionId: 's-9', target: chart, bindings });
    const poll = await run('tradescript_subscribe', { action: 'poll', subscriptionId: 'sub-1' });
    expect(harness.hub.requests[1]?.sessionId).toBe('s-9');
    expect(poll.payload.meta.sessionId).toBe('s-9');
    const list = await run('tradescript_subscribe', { action: 'list' });
    expect(list.payload.data).toMatchObject({ subscriptions: [{ subscriptionId: 'sub-1' }] });
  });

  test('SPEC §7 another attachment’s (or an unknown) subscription id is subscription_not_found', async () => {
    harness = await connectClient({ tools: ['tradescript_subscribe'] });
    const { payload } = await run('tradescript_subscribe', { action: 'stop', subscriptionId: 'someone-elses' });
    expect(payload.error).toMatchObject({ code: 'subscription_not_found', retry: 'after_reread' });
    expect(harness.hub.requests).toHaveLength(0);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { envelopeOf } from '../server/testing/testHarness.js';
import { CHART, startFullStack, type FullStack } from './fullStack.js';

let stack: FullStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe('the in-process full stack', () => {
  it('SPEC §1 a real client reads context and moves the chart through front, hub, relay, bridge runtime and host', async () => {
    stack = await startFullStack();
    const { client } = await stack.connect();
    const context = envelopeOf(
      await client.callTool({
        name: 'tradescript_get_context',
        arguments: { sessionId: stack.sessionId, target: CHART },
      }),
    );
    expect(context.error).toBeNull();
    const revisions = (context.data as { controllerRevisions: { chart: { viewport: number } } }).controllerRevisions;
    const moved = envelopeOf(
      await client.callTool({
        name: 'tradescript_call',
        arguments: {
          sessionId: stack.sessionId,
          target: CHART,
          controlId: 'chart.setVisibleRange',
          args: [{ from: 5, to: 50 }],
          expectedRevisions: { viewport: revisions.chart.viewport },
        },
      }),
    );
    expect(moved.error).toBeNull();
    expect(stack.tab.chartState).toEqual({ from: 5, to: 50 });
  });

  it('SPEC §7 a subscription on the chart polls the quotes its source emitted', async () => {
    stack = await startFullStack();
    const { client } = await stack.connect();
    const started = envelopeOf(
      await client.callTool({
        name: 'tradescript_subscribe',
        arguments: {
          action: 'start',
          sessionId: stack.sessionId,
          target: CHART,
          bindings: [{ channelId: 'data.quotes', bindingId: 'q', options: { symbols: ['BINANCE:BTCUSDT'] } }],
        },
      }),
    );
    expect(started.error).toBeNull();
    const subscriptionId = (started.data as { subscriptionId: string }).subscriptionId;
    stack.quotes.emit({
      symbol: 'BINANCE:BTCUSDT',
      bid: '1.0',
      ask: '1.1',
      last: '1.05',
      time: '2026-01-01T00:00:00.000Z',
    });
    let events = 0;
    for (let i = 0; i < 100 && events === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const polled = envelopeOf(
        await client.callTool({ name: 'tradescript_subscribe', arguments: { action: 'poll', subscriptionId } }),
      );
      events = (polled.data as { events: unknown[] }).events.length;
    }
    expect(events).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMITS,
  relayLimitsOf,
  SubscriptionListSchema,
  SubscriptionPollSchema,
  SubscriptionStartedSchema,
  SubscriptionSummarySchema,
  TOMBSTONE_TTL_MS,
  makeError,
  type ErrorObject,
  type RelayLimits,
  type SubscribeInput,
  type Target,
} from '../../protocol/index.js';
import type { RelayOutcome } from '../relay/clientFrames.js';
import type { BindingRequest, BindingStart, ObserveContext } from './observeTypes.js';
import { SubscriptionRegistry } from './subscriptionRegistry.js';

const defaults = relayLimitsOf(DEFAULT_LIMITS);
const chart: Target = { scope: 'chart', chartId: 'c1' };
const widget: Target = { scope: 'widget', widgetId: 'w1' };

/** The page's binding calls, answered from a script and counted. */
class FakePage {
  readonly started: Array<{ request: BindingRequest; handle: number }> = [];
  readonly stopped: string[] = [];
  readonly failures = new Map<string, ErrorObject>();
  /** Runs while a start is pending (to overtake it). */
  duringStart: ((request: BindingRequest) => void) | null = null;
  startBinding(request: BindingRequest, handle: number): Promise<BindingStart> {
    this.started.push({ request, handle });
    this.duringStart?.(request);
    const error = this.failures.get(request.bindingId);
    return Promise.resolve(error ? { ok: false, error } : { ok: true });
  }
  stopBinding(subscriptionId: string, bindingId: string): void {
    this.stopped.push(`${subscriptionId}/${bindingId}`);
  }
  handleOf(bindingId: string): number {
    return this.started.filter((s) => s.request.bindingId === bindingId).at(-1)?.handle ?? 0;
  }
}

let page: FakePage;
let now: number;
let ids: number;

function setup(): SubscriptionRegistry {
  page = new FakePage();
  now = Date.parse('2026-01-01T00:00:00Z');
  ids = 0;
  return new SubscriptionRegistry({ port: page, now: () => now, newId: () => `sub-${++ids}` });
}

function ctx(attachmentId = 'att-1', limits: Partial<RelayLimits> = {}, sessionId = 's-1'): ObserveContext {
  return {
    sessionId,
    attachment: { attachmentId, namespace: `ns-${attachmentId}`, clientName: 'test' },
    limits: { ...defaults, ...limits },
  };
}

const bindings = (...names: string[]) =>
  names.map((bindingId) => ({ channelId: 'data.quotes', bindingId, options: { symbols: ['X'] } }));
const start = (target: Target, ...names: string[]): SubscribeInput => ({
  action: 'start',
  sessionId: 's-1',
  target,
  bindings: bindings(...names),
});

function data(outcome: RelayOutcome): unknown {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.error.code}`);
  return outcome.data;
}
function error(outcome: RelayOutcome): ErrorObject {
  if (outcome.ok) throw new Error('expected an error');
  return outcome.error;
}
async function started(registry: SubscriptionRegistry, c: ObserveContext, input: SubscribeInput): Promise<string> {
  return SubscriptionStartedSchema.parse(data(await registry.handle(c, input))).subscriptionId;
}
async function poll(registry: SubscriptionRegistry, c: ObserveContext, subscriptionId: string, afterSequence?: number) {
  return SubscriptionPollSchema.parse(
    data(await registry.handle(c, { action: 'poll', subscriptionId, afterSequence })),
  );
}

describe('SPEC §7 subscription start', () => {
  it('starts each binding in order with the request’s identity and answers SubscriptionStarted', async () => {
    const registry = setup();
    const outcome = await registry.handle(ctx(), start(chart, 'b1', 'b2'));
    expect(SubscriptionStartedSchema.parse(data(outcome))).toEqual({
      subscriptionId: 'sub-1',
      status: 'active',
      target: chart,
      bindings: [
        { bindingId: 'b1', channelId: 'data.quotes' },
        { bindingId: 'b2', channelId: 'data.quotes' },
      ],
      startedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(page.started.map((s) => s.request)).toEqual([
      expect.objectContaining({
        sessionId: 's-1',
        subscriptionId: 'sub-1',
        bindingId: 'b1',
        bindingIndex: 0,
        options: { symbols: ['X'] },
      }),
      expect.objectContaining({
        bindingId: 'b2',
        bindingIndex: 1,
        attachment: expect.objectContaining({ attachmentId: 'att-1' }),
      }),
    ]);
  });

  it('events get sequences from 1 with target, channel, binding and receipt time; drop markers take a sequence', async () => {
    const registry = setup();
    const id = await started(registry, ctx(), start(chart, 'b1', 'b2'));
    const [h1, h2] = [page.handleOf('b1'), page.handleOf('b2')];
    registry.receive([h1, -h2, h2], [{ p: 1 }, undefined, { p: 3 }], now + 5);
    const read = await poll(registry, ctx(), id);
    expect(read.events).toEqual([
      {
        sequence: 1,
        receivedAt: '2026-01-01T00:00:00.005Z',
        target: chart,
        channelId: 'data.quotes',
        bindingId: 'b1',
        payload: { p: 1 },
      },
      {
        sequence: 3,
        receivedAt: '2026-01-01T00:00:00.005Z',
        target: chart,
        channelId: 'data.quotes',
        bindingId: 'b2',
        payload: { p: 3 },
      },
    ]);
    expect(read).toMatchObject({ status: 'active', lastSequence: 3, droppedBeforeSequence: 3, droppedCount: 1 });
  });

  it('SPEC §6 more bindings than bindingsPerSubscription is limit_exceeded with limit and max, before any source', async () => {
    const registry = setup();
    const err = error(await registry.handle(ctx('att-1', { bindingsPerSubscription: 2 }), start(chart, 'a', 'b', 'c')));
    expect(err).toMatchObject({ code: 'limit_exceeded', details: { limit: 'bindingsPerSubscription', max: 2 } });
    expect(page.started).toHaveLength(0);
  });

  it('SPEC §6 the 33rd active subscription of a session is refused across attachments; tombstones do not count', async () => {
    const registry = setup();
    for (let i = 0; i < 32; i++) await started(registry, ctx(i % 2 ? 'att-1' : 'att-2'), start(chart, 'b'));
    const err = error(await registry.handle(ctx('att-3'), start(chart, 'b')));
    expect(err).toMatchObject({ code: 'limit_exceeded', details: { limit: 'subscriptionsPerSession', max: 32 } });
    expect(data(await registry.handle(ctx('att-2'), { action: 'stop', subscriptionId: 'sub-1' }))).toMatchObject({
      status: 'stopped',
    });
    await started(registry, ctx('att-3'), start(chart, 'b'));
    expect(error(await registry.handle(ctx('att-1'), start(chart, 'b'))).code).toBe('limit_exceeded');
  });

  it('another session has its own 32', async () => {
    const registry = setup();
    for (let i = 0; i < 32; i++) await started(registry, ctx(), start(chart, 'b'));
    await started(registry, ctx('att-1', {}, 's-2'), start(chart, 'b'));
  });

  it('a repeated bindingId is invalid_input pointing at the repeat, and no source is touched', async () => {
    const registry = setup();
    const err = error(await registry.handle(ctx(), start(chart, 'b1', 'b2', 'b1')));
    expect(err).toMatchObject({ code: 'invalid_input', validation_errors: [{ path: ['bindings', 2, 'bindingId'] }] });
    expect(page.started).toHaveLength(0);
  });

  it('a failing binding rolls back the earlier ones (stopped once each) and fails the start with its error', async () => {
    const registry = setup();
    page.failures.set('b3', makeError('invalid_input', 'Options do not match the optionsContract.'));
    const err = error(await registry.handle(ctx(), start(chart, 'b1', 'b2', 'b3', 'b4')));
    expect(err).toMatchObject({ code: 'invalid_input', message: 'Options do not match the optionsContract.' });
    expect(page.started.map((s) => s.request.bindingId)).toEqual(['b1', 'b2', 'b3']);
    expect(page.stopped).toEqual(['sub-1/b1', 'sub-1/b2']);
    registry.receive([page.handleOf('b1')], ['late'], now);
    expect(SubscriptionListSchema.parse(data(await registry.handle(ctx(), { action: 'list' }))).subscriptions).toEqual(
      [],
    );
  });

  it('a page that throws on start is internal_error, and what started is rolled back', async () => {
    const registry = setup();
    page.startBinding = (request) =>
      request.bindingId === 'b2' ? Promise.reject(new Error('gone')) : Promise.resolve({ ok: true });
    expect(error(await registry.handle(ctx(), start(chart, 'b1', 'b2'))).code).toBe('internal_error');
    expect(page.stopped).toEqual(['sub-1/b1']);
  });

  it('a detach that overtakes a pending start fails it and releases every binding it started', async () => {
    const registry = setup();
    page.duringStart = (request) => {
      if (request.bindingId === 'b2') registry.attachmentEnded('att-1');
    };
    expect(error(await registry.handle(ctx(), start(chart, 'b1', 'b2', 'b3'))).code).toBe('session_closed');
    expect(page.stopped.sort()).toEqual(['sub-1/b1', 'sub-1/b2']);
    expect(error(await registry.handle(ctx(), { action: 'poll', subscriptionId: 'sub-1' })).code).toBe(
      'subscription_not_found',
    );
  });
});

describe('SPEC §7 poll, stop, list and tombstones', () => {
  it('polls consume nothing, default to eventsPerPoll, and a larger limit is limit_exceeded', async () => {
    const registry = setup();
    const id = await started(registry, ctx(), start(chart, 'b'));
    registry.receive(
      Array(150).fill(page.handleOf('b')),
      Array.from({ length: 150 }, (_, i) => i),
      now,
    );
    const first = await poll(registry, ctx(), id);
    expect(first.events).toHaveLength(100);
    expect(await poll(registry, ctx(), id)).toEqual(first);
    const err = error(await registry.handle(ctx(), { action: 'poll', subscriptionId: id, limit: 101 }));
    expect(err).toMatchObject({ code: 'limit_exceeded', details: { limit: 'eventsPerPoll', max: 100 } });
  });

  it('the ring keeps bufferedEvents; evictions are counted drops', async () => {
    const registry = setup();
    const id = await started(registry, ctx('att-1', { bufferedEvents: 4 }), start(chart, 'b'));
    registry.receive(
      Array(10).fill(page.handleOf('b')),
      Array.from({ length: 10 }, (_, i) => i + 1),
      now,
    );
    const read = await poll(registry, ctx(), id);
    expect(read.events.map((e) => e.sequence)).toEqual([7, 8, 9, 10]);
    expect(read).toMatchObject({ droppedBeforeSequence: 7, droppedCount: 6, lastSequence: 10 });
  });

  it('stop answers the final summary, tears each binding down once, and stopping twice returns the same', async () => {
    const registry = setup();
    const id = await started(registry, ctx(), start(chart, 'b1', 'b2'));
    now += 1000;
    const first = SubscriptionSummarySchema.parse(
      data(await registry.handle(ctx(), { action: 'stop', subscriptionId: id })),
    );
    now += 1000;
    const second = data(await registry.handle(ctx(), { action: 'stop', subscriptionId: id }));
    expect(first).toMatchObject({ status: 'stopped', reason: 'stopped', stoppedAt: '2026-01-01T00:00:01.000Z' });
    expect(second).toEqual(first);
    expect(page.stopped).toEqual([`${id}/b1`, `${id}/b2`]);
    registry.receive([page.handleOf('b1')], ['late'], now);
    expect((await poll(registry, ctx(), id)).lastSequence).toBe(0);
  });

  it('an attachment sees and controls only its own subscriptions', async () => {
    const registry = setup();
    const mine = await started(registry, ctx('att-1'), start(chart, 'b'));
    await started(registry, ctx('att-2'), start(chart, 'b'));
    for (const action of ['poll', 'stop'] as const) {
      expect(error(await registry.handle(ctx('att-2'), { action, subscriptionId: mine })).code).toBe(
        'subscription_not_found',
      );
    }
    expect(error(await registry.handle(ctx('att-1', {}, 's-2'), { action: 'poll', subscriptionId: mine })).code).toBe(
      'subscription_not_found',
    );
    const list = SubscriptionListSchema.parse(data(await registry.handle(ctx('att-2'), { action: 'list' })));
    expect(list.subscriptions.map((s) => s.subscriptionId)).toEqual(['sub-2']);
    expect(page.stopped).toEqual([]);
  });

  it('an unregistered target leaves target-unregistered tombstones in poll and list; the SDK already released its sources', async () => {
    const registry = setup();
    const onChart = await started(registry, ctx(), start(chart, 'b'));
    const onWidget = await started(registry, ctx(), start(widget, 'w'));
    registry.receive([page.handleOf('b')], ['before'], now);
    now += 250;
    registry.targetUnregistered({ scope: 'chart', chartId: 'c1' });
    registry.receive([page.handleOf('b')], ['after'], now);
    const read = await poll(registry, ctx(), onChart);
    expect(read).toMatchObject({
      status: 'stopped',
      reason: 'target-unregistered',
      stoppedAt: '2026-01-01T00:00:00.250Z',
      lastSequence: 1,
    });
    expect(read.events.map((e) => e.payload)).toEqual(['before']);
    const list = SubscriptionListSchema.parse(data(await registry.handle(ctx(), { action: 'list' })));
    expect(list.subscriptions.map((s) => [s.subscriptionId, s.status, s.reason])).toEqual([
      [onChart, 'stopped', 'target-unregistered'],
      [onWidget, 'active', undefined],
    ]);
    expect(page.stopped).toEqual([]);
  });

  it('an ended attachment’s subscriptions stop with attachment-detached, each binding torn down once', async () => {
    const registry = setup();
    const gone = await started(registry, ctx('att-1'), start(chart, 'b1', 'b2'));
    await started(registry, ctx('att-2'), start(chart, 'x'));
    registry.attachmentEnded('att-1');
    registry.attachmentEnded('att-1');
    expect(page.stopped).toEqual([`${gone}/b1`, `${gone}/b2`]);
    expect(await poll(registry, ctx('att-1'), gone)).toMatchObject({
      status: 'stopped',
      reason: 'attachment-detached',
    });
    const others = SubscriptionListSchema.parse(data(await registry.handle(ctx('att-2'), { action: 'list' })));
    expect(others.subscriptions.map((s) => s.status)).toEqual(['active']);
  });

  it('a closed session’s subscriptions stop with session-closed', async () => {
    const registry = setup();
    const id = await started(registry, ctx(), start(chart, 'b'));
    registry.sessionClosed('s-1');
    expect(await poll(registry, ctx(), id)).toMatchObject({ status: 'stopped', reason: 'session-closed' });
    expect(page.stopped).toEqual([`${id}/b`]);
  });

  it('keeps the 32 most recent tombstones per session, each for 10 minutes', async () => {
    const registry = setup();
    for (let i = 0; i < 33; i++) {
      const id = await started(registry, ctx(), start(chart, 'b'));
      now += 1;
      await registry.handle(ctx(), { action: 'stop', subscriptionId: id });
    }
    expect(error(await registry.handle(ctx(), { action: 'poll', subscriptionId: 'sub-1' })).code).toBe(
      'subscription_not_found',
    );
    expect((await poll(registry, ctx(), 'sub-2')).status).toBe('stopped');
    // sub-k stopped at t0 + k; now is t0 + 33. Move to t0 + 3 + TTL: sub-2 is older than the TTL, sub-3 exactly it.
    now += TOMBSTONE_TTL_MS - 30;
    expect(error(await registry.handle(ctx(), { action: 'poll', subscriptionId: 'sub-2' })).code).toBe(
      'subscription_not_found',
    );
    expect((await poll(registry, ctx(), 'sub-3')).status).toBe('stopped');
  });

  it('a restored subscription is a tombstone that continues its numbering', async () => {
    const registry = setup();
    const init = {
      subscriptionId: 'old',
      sessionId: 's-1',
      attachmentId: 'att-1',
      target: chart,
      bindings: [],
      startedAtMs: now - 5000,
      lastSequence: 40,
    };
    registry.restore(init, now, 'bridge-restarted');
    expect(await poll(registry, ctx(), 'old', 38)).toMatchObject({
      status: 'stopped',
      reason: 'bridge-restarted',
      events: [],
      lastSequence: 40,
      droppedBeforeSequence: 41,
      droppedCount: 2,
    });
  });
});

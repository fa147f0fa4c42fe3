import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocketServer } from 'ws';
import { WebSocket } from 'ws';
import type { BrowserFrame, SubscribeInput, Target } from '../../protocol/index.js';
import type { Catalog, SessionOutcome } from '../../sdk/types.js';
import { createMemoryCredentialStore } from '../relay/browserCredentials.js';
import type { LinkHost } from '../link/pageHostLink.js';
import type { BindingSinkEvent, BindingRequest, BindingStart, CaptureOutcome } from '../observe/observeTypes.js';
import { startSplitRuntime } from '../testing/splitRuntime.js';
import { createMemorySubscriptionJournal } from '../observe/subscriptionJournal.js';
import { ManualClock } from '../testing/manualClock.js';
import { knownCredential, listenScriptedRelay } from '../testing/listeningRelay.js';
import type { ScriptedRelay } from '../testing/scriptedRelay.js';
import { requestFrame, type PeerRecord } from '../testing/scriptedRelay.js';
import type { BridgeStatus } from '../page/bridgeTypes.js';
import type { PageRuntime } from './pageRuntime.js';

/** A host whose bindings the test drives through their sinks. */
class BindingHost implements LinkHost {
  readonly sinks = new Map<string, (event: BindingSinkEvent) => void>();
  readonly stopped: string[] = [];
  private unregistered: ((target: Target) => void) | null = null;
  handle = (): Promise<SessionOutcome> => Promise.resolve({ ok: true, data: null });
  catalog = (): Catalog => ({ controls: [], channels: [] });
  async startBinding(request: BindingRequest, sink: (event: BindingSinkEvent) => void): Promise<BindingStart> {
    this.sinks.set(request.bindingId, sink);
    return { ok: true };
  }
  stopBinding(subscriptionId: string, bindingId: string): void {
    this.stopped.push(`${subscriptionId}/${bindingId}`);
  }
  capture(): Promise<CaptureOutcome> {
    throw new Error('not in Node');
  }
  onTargetUnregistered(listener: (target: Target) => void): () => void {
    this.unregistered = listener;
    return () => undefined;
  }
  unregister(target: Target): void {
    this.unregistered?.(target);
  }
}

const chart: Target = { scope: 'chart', chartId: 'c1' };
let wss: WebSocketServer;
let relayUrl: string;
let relay: ScriptedRelay;
let runtimes: PageRuntime[];
let nextRequest = 0;

beforeEach(async () => {
  ({ wss, relay, url: relayUrl } = await listenScriptedRelay());
  relay.credential = knownCredential();
  runtimes = [];
});

afterEach(async () => {
  for (const runtime of runtimes) runtime.close();
  for (const client of wss.clients) client.terminate();
  await new Promise((resolve) => wss.close(resolve));
  expect(relay.invalidFrames).toBe(0);
});

/** The page runtime and the worker's observer behind a real MessageChannel, as `connectBridge` wires them. */
async function startRuntime(
  host: BindingHost,
  deps: { journal?: ReturnType<typeof createMemorySubscriptionJournal>; clock?: ManualClock } = {},
) {
  const statuses: BridgeStatus[] = [];
  const info = { title: 'Terminal', environment: 'paper' as const, grant: 'write' as const };
  const runtime = startSplitRuntime(
    host,
    { relayUrl, info, agentVersion: 'test', sessionId: 'kept' },
    { status: (s) => statuses.push(s) },
    { webSocket: WebSocket, credentials: createMemoryCredentialStore(relay.credential), random: () => 0, ...deps },
  );
  runtimes.push(runtime);
  await vi.waitFor(() => expect(statuses.at(-1)?.state).toBe('paired'));
  return { peer: relay.latest!, runtime };
}

/** Sends one subscribe request and waits for its answer. */
async function subscribe(peer: PeerRecord, input: SubscribeInput, attachmentId = 'att-1') {
  const id = `req-${++nextRequest}`;
  const attachment = { attachmentId, namespace: `ns-${attachmentId}`, clientName: 'test' };
  relay.send(peer, requestFrame(id, 'kept', { kind: 'subscribe', input }, { attachment }));
  const answer = await vi.waitFor(() => {
    const frame = peer.frames.find(
      (f): f is Extract<BrowserFrame, { t: 'response' }> => f.t === 'response' && f.id === id,
    );
    if (!frame) throw new Error('no answer yet');
    return frame;
  });
  return answer.outcome as { ok: true; data: Record<string, unknown> } | { ok: false; error: { code: string } };
}

const startInput: SubscribeInput = {
  action: 'start',
  sessionId: 'kept',
  target: chart,
  bindings: [
    { channelId: 'data.quotes', bindingId: 'q' },
    { channelId: 'trading.events', bindingId: 't' },
  ],
};

describe('SPEC §7 subscriptions served by the worker over a real MessageChannel', () => {
  it('events emitted on the page arrive in batches and are polled over the relay with sequences, drops and receipt times', async () => {
    const host = new BindingHost();
    const { peer } = await startRuntime(host);
    const started = await subscribe(peer, startInput);
    if (!started.ok) throw new Error(started.error.code);
    const subscriptionId = String(started.data['subscriptionId']);
    for (let i = 1; i <= 1000; i++) host.sinks.get(i % 2 ? 'q' : 't')?.({ bindingId: 'x', payload: { i } });
    host.sinks.get('q')?.({ bindingId: 'q', dropped: 'oversized' });
    // The page's batcher posts them within 4 ms; the poll below waits for them.
    await vi.waitFor(async () => {
      const polled = await subscribe(peer, { action: 'poll', subscriptionId, afterSequence: 995 });
      // The window ends at the last returned event (1000): the drop at 1001 is the next poll's.
      expect(polled).toMatchObject({
        ok: true,
        data: { lastSequence: 1001, droppedBeforeSequence: null, droppedCount: 0 },
      });
    });
    const tail = await subscribe(peer, { action: 'poll', subscriptionId, afterSequence: 1000 });
    expect(tail).toMatchObject({ ok: true, data: { events: [], droppedBeforeSequence: 1002, droppedCount: 1 } });
    const oldest = await subscribe(peer, { action: 'poll', subscriptionId, limit: 2 });
    expect(oldest).toMatchObject({
      ok: true,
      data: {
        status: 'active',
        events: [
          { sequence: 746, bindingId: 't', channelId: 'trading.events', payload: { i: 746 }, target: chart },
          { sequence: 747, bindingId: 'q', channelId: 'data.quotes', payload: { i: 747 } },
        ],
        droppedBeforeSequence: 746,
        droppedCount: 745,
      },
    });
  });

  it('a target unregistered on the page reaches the worker after the events queued before it', async () => {
    const host = new BindingHost();
    const { peer } = await startRuntime(host);
    const started = await subscribe(peer, startInput);
    const subscriptionId = started.ok ? String(started.data['subscriptionId']) : '';
    host.sinks.get('q')?.({ bindingId: 'q', payload: 'last words' });
    host.unregister(chart);
    await vi.waitFor(async () => {
      const polled = await subscribe(peer, { action: 'poll', subscriptionId });
      expect(polled).toMatchObject({
        ok: true,
        data: {
          status: 'stopped',
          reason: 'target-unregistered',
          lastSequence: 1,
          events: [{ payload: 'last words' }],
        },
      });
    });
    expect(host.stopped).toEqual([]);
  });

  it('attachment.ended stops that attachment’s subscriptions and releases their sources once', async () => {
    const host = new BindingHost();
    const { peer } = await startRuntime(host);
    const started = await subscribe(peer, startInput);
    const subscriptionId = started.ok ? String(started.data['subscriptionId']) : '';
    relay.send(peer, { t: 'attachment.ended', attachmentId: 'att-1' });
    await vi.waitFor(() => expect(host.stopped).toEqual([`${subscriptionId}/q`, `${subscriptionId}/t`]));
    expect(await subscribe(peer, { action: 'poll', subscriptionId })).toMatchObject({
      ok: true,
      data: { reason: 'attachment-detached' },
    });
    expect(await subscribe(peer, { action: 'poll', subscriptionId }, 'att-2')).toMatchObject({
      ok: false,
      error: { code: 'subscription_not_found' },
    });
  });

  it('an attachment missing from the attachments lists for a minute is treated as detached', async () => {
    const host = new BindingHost();
    const clock = new ManualClock();
    const { peer } = await startRuntime(host, { clock });
    const started = await subscribe(peer, startInput);
    const subscriptionId = started.ok ? String(started.data['subscriptionId']) : '';
    const timers = clock.waiting;
    relay.send(peer, { t: 'attachments', sessionId: 'kept', list: [] });
    await vi.waitFor(() => expect(clock.waiting).toBe(timers + 1));
    // Ten seconds at a time, so the heartbeat's pongs keep the socket alive on the manual clock.
    for (let s = 0; s < 5; s++) {
      clock.advance(10_000);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    clock.advance(9_999);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(host.stopped).toEqual([]);
    clock.advance(1);
    await vi.waitFor(() => expect(host.stopped).toEqual([`${subscriptionId}/q`, `${subscriptionId}/t`]));
    expect(await subscribe(peer, { action: 'poll', subscriptionId })).toMatchObject({
      ok: true,
      data: { reason: 'attachment-detached' },
    });
  });

  it('when the server refuses the kept session id after a reconnect, the old session’s subscriptions close and release their sources', async () => {
    const host = new BindingHost();
    const { peer } = await startRuntime(host);
    const started = await subscribe(peer, startInput);
    const subscriptionId = started.ok ? String(started.data['subscriptionId']) : '';
    relay.refusedSessionIds.add('kept');
    peer.socket.terminate();
    await vi.waitFor(() => expect(relay.framesOf('session.open').some((f) => f.sessionId === undefined)).toBe(true), {
      timeout: 5000,
    });
    await vi.waitFor(() => expect(host.stopped).toEqual([`${subscriptionId}/q`, `${subscriptionId}/t`]));
  });

  it('after a worker restart the tab’s known subscriptions are bridge-restarted tombstones (journal), others stay not found', async () => {
    const journal = createMemorySubscriptionJournal();
    const clock = new ManualClock();
    const first = await startRuntime(new BindingHost(), { journal, clock });
    const started = await subscribe(first.peer, startInput);
    const subscriptionId = started.ok ? String(started.data['subscriptionId']) : '';
    clock.advance(1000);
    expect(journal.sessions.get('kept')?.map((s) => s.subscriptionId)).toEqual([subscriptionId]);
    // The tab reloads: its worker dies without a word, a new one starts with the kept session id.
    const second = await startRuntime(new BindingHost(), { journal, clock: new ManualClock() });
    expect(await subscribe(second.peer, { action: 'poll', subscriptionId })).toMatchObject({
      ok: true,
      data: { status: 'stopped', reason: 'bridge-restarted', events: [] },
    });
    expect(await subscribe(second.peer, { action: 'list' })).toMatchObject({
      ok: true,
      data: { subscriptions: [{ subscriptionId, reason: 'bridge-restarted' }] },
    });
    expect(await subscribe(second.peer, { action: 'poll', subscriptionId: 'never-started' })).toMatchObject({
      ok: false,
      error: { code: 'subscription_not_found' },
    });
  });
});

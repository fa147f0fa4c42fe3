import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { makeError } from '../../protocol/index.js';
import type { PageObserveMessage } from '../../protocol/wire/observeLink.js';
import type { Catalog } from '../../sdk/types.js';
import { createMemoryCredentialStore } from '../relay/browserCredentials.js';
import type { RuntimeHost } from './pageRuntime.js';
import type { PageRuntime } from './pageRuntime.js';
import { WorkerClock } from './workerClock.js';
import { ManualClock } from '../testing/manualClock.js';
import { ScriptedRelay } from '../testing/scriptedRelay.js';
import { startSplitRuntime } from '../testing/splitRuntime.js';
import type { BridgeStatus } from '../page/bridgeTypes.js';

describe('SPEC §9 the page’s relay timers run on the worker’s clock', () => {
  it('a timer is the worker’s: it runs when the worker says it fell due, once, and a cleared one never runs', () => {
    const posted: PageObserveMessage[] = [];
    const local = new ManualClock();
    const clock = new WorkerClock((message) => posted.push(message) > 0, local);
    const ran: string[] = [];
    const first = clock.setTimeout(() => ran.push('first'), 20_000);
    const second = clock.setTimeout(() => ran.push('second'), 45_000);
    clock.clearTimeout(second);
    expect(posted).toEqual([
      { t: 'timer', id: first, ms: 20_000 },
      { t: 'timer', id: second, ms: 45_000 },
      { t: 'clearTimer', id: second },
    ]);
    local.advance(60_000); // the page's own timers: nothing runs on them
    expect(ran).toEqual([]);
    clock.tick(first as number);
    clock.tick(first as number);
    clock.tick(second as number);
    expect(ran).toEqual(['first']);
  });

  it('with no worker to tell, a timer falls back to the page’s own clock', () => {
    const local = new ManualClock();
    const clock = new WorkerClock(() => false, local);
    const ran: number[] = [];
    clock.setTimeout(() => ran.push(local.now()), 250);
    local.advance(1_000);
    expect(ran).toEqual([250]);
  });
});

const host: RuntimeHost = {
  handle: () => Promise.resolve({ ok: true, data: null }),
  catalog: (): Catalog => ({ controls: [], channels: [] }),
  startBinding: () => Promise.resolve({ ok: true }),
  stopBinding: () => undefined,
  capture: () => Promise.resolve({ ok: false, error: makeError('target_not_found', 'No such chart.') }),
  onTargetUnregistered: () => () => undefined,
};

let wss: WebSocketServer;
let relay: ScriptedRelay;
let runtime: PageRuntime | null = null;

beforeEach(async () => {
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => wss.once('listening', resolve));
  relay = new ScriptedRelay();
  relay.credential = { hostId: 'host-1', secret: 'the-current-secret-0001' };
  relay.serve(wss);
});

afterEach(async () => {
  runtime?.close();
  runtime = null;
  for (const client of wss.clients) client.terminate();
  await new Promise((resolve) => wss.close(resolve));
  expect(relay.invalidFrames).toBe(0);
});

describe('SPEC §9 heartbeat and reconnect of the page’s socket, timed by the worker', () => {
  it('the page pings when the worker’s clock passes the interval, and reconnects when it passes the backoff', async () => {
    const timers = new ManualClock();
    const statuses: BridgeStatus[] = [];
    const relayUrl = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
    runtime = startSplitRuntime(
      host,
      { relayUrl, info: { title: 'Terminal', grant: 'read' }, agentVersion: 'test' },
      { status: (status) => statuses.push(status) },
      { webSocket: WebSocket, credentials: createMemoryCredentialStore(relay.credential), random: () => 0.5, timers },
    );
    await vi.waitFor(() => expect(statuses.at(-1)?.state).toBe('paired'));
    // The heartbeat's ping timer and its watchdog wait in the worker.
    await vi.waitFor(() => expect(timers.requested).toContain(relay.heartbeatMs));
    expect(relay.framesOf('ping')).toHaveLength(0);
    timers.advance(relay.heartbeatMs);
    await vi.waitFor(() => expect(relay.framesOf('ping')).toHaveLength(1));

    const before = timers.requested.length;
    relay.latest!.socket.terminate();
    await vi.waitFor(() => expect(statuses.at(-1)?.state).toBe('disconnected'));
    // The first backoff, full jitter at 0.5 of 250 ms, waits in the worker too.
    await vi.waitFor(() => expect(timers.requested.slice(before)).toContain(125));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(relay.peers).toHaveLength(1);
    timers.advance(10_000);
    await vi.waitFor(() => expect(relay.peers[1]?.welcomed).toBe(true));
  });
});

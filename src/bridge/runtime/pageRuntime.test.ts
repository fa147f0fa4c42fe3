import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocketServer } from 'ws';
import { WebSocket } from 'ws';
import { makeError, type BrowserFrame, type Grant, type Operation } from '../../protocol/index.js';
import type {
  BindingStart,
  Catalog,
  CaptureOutcome,
  RequestHooks,
  SessionOutcome,
  SessionRequest,
} from '../../sdk/types.js';
import { createMemoryCredentialStore } from '../relay/browserCredentials.js';
import type { LinkHost } from '../link/pageHostLink.js';
import { startSplitRuntime, type SplitRuntimeDeps } from '../testing/splitRuntime.js';
import { ManualClock } from '../testing/manualClock.js';
import { knownCredential, listenScriptedRelay } from '../testing/listeningRelay.js';
import type { ScriptedRelay } from '../testing/scriptedRelay.js';
import { requestFrame, type PeerRecord } from '../testing/scriptedRelay.js';
import type { BridgeStatus } from '../page/bridgeTypes.js';
import type { PageRuntime, RuntimeConfig } from './pageRuntime.js';

/** The part of a host the host-call link uses, answering from a script. */
class ScriptedHost implements LinkHost {
  readonly requests: SessionRequest[] = [];
  answer: (request: SessionRequest, hooks: RequestHooks) => Promise<SessionOutcome> = () =>
    Promise.resolve({ ok: true, data: { answered: true } });
  handle(request: SessionRequest, hooks?: RequestHooks): Promise<SessionOutcome> {
    this.requests.push(request);
    return this.answer(request, hooks ?? {});
  }
  catalogDocument: Catalog = { controls: [], channels: [] };
  catalog(): Catalog {
    return this.catalogDocument;
  }
  startBinding(): Promise<BindingStart> {
    return Promise.resolve({ ok: true });
  }
  stopBinding(): void {}
  onTargetUnregistered(): () => void {
    return () => undefined;
  }
  capture(): Promise<CaptureOutcome> {
    return Promise.resolve({ ok: false, error: makeError('target_not_found', 'No such chart.') });
  }
}

const contextOp: Operation = { kind: 'context', target: { scope: 'session' } };
let wss: WebSocketServer;
let relayUrl: string;
let relay: ScriptedRelay;
let runtime: PageRuntime | null;
let host: ScriptedHost;
let statuses: BridgeStatus[];
let proposed: Grant[];

beforeEach(async () => {
  ({ wss, relay, url: relayUrl } = await listenScriptedRelay());
  runtime = null;
  host = new ScriptedHost();
  statuses = [];
  proposed = [];
});

afterEach(async () => {
  runtime?.close();
  for (const client of wss.clients) client.terminate();
  await new Promise((resolve) => wss.close(resolve));
  expect(relay.invalidFrames).toBe(0);
});

/** Starts the page runtime with its worker observer behind a real MessageChannel, and waits for `paired`. */
async function startRuntime(
  config: Partial<RuntimeConfig> = {},
  expectState = 'paired',
  extra: Partial<SplitRuntimeDeps> = {},
): Promise<{ peer: PeerRecord; sessionId: string }> {
  const credentials = createMemoryCredentialStore(relay.credential);
  const info = { title: 'Demo terminal', environment: 'paper' as const, grant: 'write' as const };
  runtime = startSplitRuntime(
    host,
    { relayUrl, info, agentVersion: 'test', ...config },
    { status: (status) => statuses.push(status), grantProposed: (grant) => proposed.push(grant) },
    { webSocket: WebSocket, credentials, random: () => 0, ...extra },
  );
  await vi.waitFor(() => expect(statuses.at(-1)?.state).toBe(expectState));
  return { peer: relay.latest!, sessionId: statuses.at(-1)?.sessionId ?? '' };
}

function responses(peer: PeerRecord): Array<Extract<BrowserFrame, { t: 'response' }>> {
  return peer.frames.filter((f): f is Extract<BrowserFrame, { t: 'response' }> => f.t === 'response');
}

describe('SPEC §1 the page runtime, with the worker’s observer over a real MessageChannel', () => {
  beforeEach(() => {
    relay.credential = knownCredential();
  });

  it('status reaches the page, and session.open carries the host’s info and catalog', async () => {
    const { peer, sessionId } = await startRuntime({ sessionId: 'kept-id' });
    expect(sessionId).toBe('kept-id');
    expect(statuses.map((s) => s.state)).toContain('connecting');
    const open = peer.frames.find((f) => f.t === 'session.open');
    expect(open).toMatchObject({
      sessionId: 'kept-id',
      info: { title: 'Demo terminal', environment: 'paper', grant: 'write' },
    });
    expect(open?.t === 'session.open' && open.catalog).toEqual(host.catalogDocument);
  });

  it('a session that does not fit the protocol is not sent (the server would close the socket) and the page is told', async () => {
    host.catalogDocument = { controls: [], channels: [{ channelId: 'broken' }] } as unknown as Catalog;
    await startRuntime({}, 'connecting');
    await vi.waitFor(() => expect(statuses.at(-1)?.message).toContain('does not fit the relay protocol'));
    expect(relay.framesOf('session.open')).toHaveLength(0);
    expect(relay.peers).toHaveLength(1);
  });

  it('a request runs through the page’s host and is answered on the relay', async () => {
    const { peer, sessionId } = await startRuntime();
    relay.send(peer, requestFrame('req-1', sessionId, contextOp));
    await vi.waitFor(() => expect(responses(peer)).toHaveLength(1));
    expect(host.requests).toHaveLength(1);
    expect(host.requests[0]).toMatchObject({ id: 'req-1', op: contextOp, attachment: { namespace: 'ns-1' } });
    expect(responses(peer)[0]).toEqual({
      t: 'response',
      id: 'req-1',
      environment: 'paper',
      outcome: { ok: true, data: { answered: true } },
    });
  });

  it('SPEC §5 cancel crosses the host-call link and aborts the page-side signal', async () => {
    host.answer = (_request, hooks) =>
      new Promise((resolve) => hooks.signal?.addEventListener('abort', () => resolve({ ok: true, data: 'abandoned' })));
    const { peer, sessionId } = await startRuntime();
    relay.send(peer, requestFrame('req-c', sessionId, contextOp));
    await vi.waitFor(() => expect(host.requests).toHaveLength(1));
    relay.send(peer, { t: 'cancel', id: 'req-c' });
    await vi.waitFor(() => expect(responses(peer)).toHaveLength(1));
    expect(responses(peer)[0]?.outcome).toEqual({ ok: true, data: 'abandoned' });
  });

  it('SPEC §3 page progress becomes progress frames of that request', async () => {
    host.answer = async (_request, hooks) => {
      hooks.progress?.(1, 3);
      await new Promise((resolve) => setTimeout(resolve, 20)); // let the report cross before the answer
      return { ok: true, data: null };
    };
    const { peer, sessionId } = await startRuntime();
    relay.send(peer, requestFrame('req-b', sessionId, { kind: 'batch', calls: [], stopOnError: true }));
    await vi.waitFor(() => expect(responses(peer)).toHaveLength(1));
    expect(peer.frames.filter((f) => f.t === 'progress')).toEqual([
      { t: 'progress', id: 'req-b', progress: 1, total: 3 },
    ]);
  });

  it('updateInfo, detachAll and close send session.update, detach and session.close', async () => {
    const { peer, sessionId } = await startRuntime();
    runtime?.updateInfo({ title: 'Renamed', grant: 'trade' }, { controls: [], channels: [] });
    runtime?.detachAll();
    runtime?.close();
    runtime = null;
    await vi.waitFor(() => expect(peer.frames.some((f) => f.t === 'session.close')).toBe(true));
    expect(peer.frames.filter((f) => ['session.update', 'detach', 'session.close'].includes(f.t))).toEqual([
      {
        t: 'session.update',
        sessionId,
        info: { title: 'Renamed', grant: 'trade' },
        catalog: { controls: [], channels: [] },
      },
      { t: 'detach', sessionId },
      { t: 'session.close', sessionId },
    ]);
    await vi.waitFor(() => expect(peer.closedWith).toBe(1000));
  });

  it('SPEC §8 a snapshot runs in the worker; the page’s capture refusal comes back as the answer', async () => {
    const { peer, sessionId } = await startRuntime();
    relay.send(
      peer,
      requestFrame('req-s', sessionId, { kind: 'snapshot', target: { scope: 'chart', chartId: 'c1' }, format: 'png' }),
    );
    await vi.waitFor(() => expect(responses(peer)).toHaveLength(1));
    const outcome = responses(peer)[0]?.outcome;
    expect(outcome?.ok === false && outcome.error.code).toBe('target_not_found');
    expect(host.requests).toHaveLength(0);
  });
});

describe('SPEC §9 pairing through the page runtime', () => {
  it('a pairing link pairs the tab and its proposed grant reaches the page', async () => {
    relay.pairCodes.add('LINK-CODE');
    relay.grant = 'trade';
    await startRuntime({ pairCode: 'LINK-CODE' });
    await vi.waitFor(() => expect(proposed).toEqual(['trade']));
    expect(statuses.map((s) => s.state)).toContain('pairing');
  });
});

describe('SPEC §9 heartbeat and reconnect of the page’s socket, timed by the worker', () => {
  beforeEach(() => {
    relay.credential = knownCredential();
  });

  it('the page pings when the worker’s clock passes the interval, and reconnects when it passes the backoff', async () => {
    const timers = new ManualClock();
    await startRuntime({}, 'paired', { timers, random: () => 0.5 });
    // The heartbeat's ping timer and its watchdog wait in the worker.
    await vi.waitFor(() => expect(timers.requested).toContain(relay.heartbeatMs));
    expect(relay.framesOf('ping')).toHaveLength(0);
    timers.advance(relay.heartbeatMs);
    await vi.waitFor(() => expect(relay.framesOf('ping')).toHaveLength(1));

    const before = timers.requested.length;
    relay.latest!.socket.terminate();
    await vi.waitFor(() => expect(statuses.at(-1)?.state).toBe('disconnected'));
    // The first backoff, full jitter at 0.5 of 250 ms, waits in the worker too: the page's own timers never run it.
    await vi.waitFor(() => expect(timers.requested.slice(before)).toContain(125));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(relay.peers).toHaveLength(1);
    timers.advance(10_000);
    await vi.waitFor(() => expect(relay.peers[1]?.welcomed).toBe(true));
  });
});

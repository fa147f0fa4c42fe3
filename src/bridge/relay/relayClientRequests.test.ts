import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocketServer } from 'ws';
import type { BrowserFrame, CatalogDocument, Operation } from '../../protocol/index.js';
import type { RelayClient } from './relayClient.js';
import { createMemoryCredentialStore } from './browserCredentials.js';
import type { HandlerResult, RelaySession, RequestHandler } from './clientSessions.js';
import { knownCredential, listenScriptedRelay } from '../testing/listeningRelay.js';
import type { ScriptedRelay } from '../testing/scriptedRelay.js';
import { requestFrame, type PeerRecord } from '../testing/scriptedRelay.js';
import { testRelayClient } from '../testing/testRelayClient.js';

const catalog: CatalogDocument = { controls: [], channels: [] };
const contextOp: Operation = { kind: 'context', target: { scope: 'session' } };
const ok = (data: unknown): HandlerResult => ({ environment: 'paper', outcome: { ok: true, data } });

let wss: WebSocketServer;
let url: string;
let relay: ScriptedRelay;
let connection: RelayClient;

beforeEach(async () => {
  ({ wss, relay, url } = await listenScriptedRelay());
  relay.credential = knownCredential();
});

afterEach(async () => {
  connection.close();
  for (const client of wss.clients) client.terminate();
  await new Promise((resolve) => wss.close(resolve));
  expect(relay.invalidFrames).toBe(0);
});

/** Connects with one session served by `handler`; resolves once it is open. */
async function openWith(
  handler: RequestHandler,
): Promise<{ session: RelaySession; sessionId: string; peer: PeerRecord }> {
  connection = testRelayClient(url, createMemoryCredentialStore(relay.credential));
  const session = connection.openSession({ info: { title: 'Tab', environment: 'paper' }, catalog, handler });
  connection.start();
  await vi.waitFor(() => expect(session.status().open).toBe(true));
  return { session, sessionId: session.status().sessionId ?? '', peer: relay.latest! };
}

function responses(peer: PeerRecord): Array<Extract<BrowserFrame, { t: 'response' }>> {
  return peer.frames.filter((f): f is Extract<BrowserFrame, { t: 'response' }> => f.t === 'response');
}

describe('SPEC §9 requests', () => {
  it('a request reaches the handler and its response frame carries the same id', async () => {
    const seen: string[] = [];
    const { sessionId, peer } = await openWith(async (request) => {
      seen.push(`${request.id}:${request.op.kind}`);
      return ok({ answer: 42 });
    });
    relay.send(peer, requestFrame('req-1', sessionId, contextOp));
    await vi.waitFor(() => expect(responses(peer)).toHaveLength(1));
    expect(seen).toEqual(['req-1:context']);
    expect(responses(peer)[0]).toEqual({
      t: 'response',
      id: 'req-1',
      environment: 'paper',
      outcome: { ok: true, data: { answer: 42 } },
    });
  });

  it('the progress hook sends progress frames for that request', async () => {
    const { sessionId, peer } = await openWith(async (_request, hooks) => {
      hooks.progress(1, 2);
      hooks.progress(2, 2);
      return ok(null);
    });
    relay.send(peer, requestFrame('req-p', sessionId, { kind: 'batch', calls: [], stopOnError: true }));
    await vi.waitFor(() => expect(responses(peer)).toHaveLength(1));
    const progress = peer.frames.filter((f) => f.t === 'progress');
    expect(progress).toEqual([
      { t: 'progress', id: 'req-p', progress: 1, total: 2 },
      { t: 'progress', id: 'req-p', progress: 2, total: 2 },
    ]);
  });

  it('SPEC §5 cancel aborts the handler’s signal', async () => {
    const { sessionId, peer } = await openWith(
      (_request, hooks) =>
        new Promise((resolve) => {
          hooks.signal.addEventListener('abort', () => resolve(ok({ abandoned: true })));
        }),
    );
    relay.send(peer, requestFrame('req-c', sessionId, contextOp));
    await vi.waitFor(() => expect(connection.inFlight).toBe(1));
    relay.send(peer, { t: 'cancel', id: 'req-c' });
    await vi.waitFor(() => expect(responses(peer)).toHaveLength(1));
    expect(responses(peer)[0]?.outcome).toEqual({ ok: true, data: { abandoned: true } });
  });

  it('SPEC §5 cancel reaches an onAbort listener, and a signal first read after it is already aborted', async () => {
    let late: AbortSignal | null = null;
    const { sessionId, peer } = await openWith(
      (_request, hooks) =>
        new Promise((resolve) => {
          hooks.onAbort?.(() => {
            late = hooks.signal;
            resolve(ok({ abortedBeforeRead: late.aborted }));
          });
        }),
    );
    relay.send(peer, requestFrame('req-o', sessionId, contextOp));
    await vi.waitFor(() => expect(connection.inFlight).toBe(1));
    relay.send(peer, { t: 'cancel', id: 'req-o' });
    await vi.waitFor(() => expect(responses(peer)).toHaveLength(1));
    expect(responses(peer)[0]?.outcome).toEqual({ ok: true, data: { abortedBeforeRead: true } });
    expect(late!.reason).toBeInstanceOf(Error);
  });

  it('a dropped socket aborts its requests for an onAbort listener too, once', async () => {
    let heard = 0;
    let release: (() => void) | null = null;
    const { sessionId, peer } = await openWith(async (request, hooks) => {
      hooks.onAbort?.(() => heard++);
      await new Promise<void>((resolve) => (release = resolve));
      return ok(request.id);
    });
    relay.send(peer, requestFrame('req-d', sessionId, contextOp));
    await vi.waitFor(() => expect(release).not.toBeNull());
    relay.send(peer, { t: 'cancel', id: 'req-d' });
    await vi.waitFor(() => expect(heard).toBe(1));
    peer.socket.terminate();
    await vi.waitFor(() => expect(relay.peers[1]?.frames.some((f) => f.t === 'session.open')).toBe(true));
    expect(connection.inFlight).toBe(0);
    expect(heard).toBe(1);
    release!();
  });

  it('a request in flight when the socket drops is never answered on the new socket', async () => {
    let release: (() => void) | null = null;
    let aborted = false;
    const { sessionId, peer } = await openWith(async (request, hooks) => {
      if (request.id === 'req-slow') {
        hooks.signal.addEventListener('abort', () => (aborted = true));
        await new Promise<void>((resolve) => (release = resolve));
      }
      return ok(request.id);
    });
    relay.send(peer, requestFrame('req-slow', sessionId, contextOp));
    await vi.waitFor(() => expect(release).not.toBeNull());
    peer.socket.terminate();
    await vi.waitFor(() => expect(relay.peers[1]?.frames.some((f) => f.t === 'session.open')).toBe(true));
    await vi.waitFor(() => expect(connection.status().state).toBe('paired'));
    expect(aborted).toBe(true);
    release!();
    // A later request on the new socket is answered; by then a stray answer to the old one would have been sent.
    const next = relay.peers[1]!;
    relay.send(next, requestFrame('req-new', sessionId, contextOp));
    await vi.waitFor(() => expect(responses(next)).toHaveLength(1));
    expect(responses(next).map((r) => r.id)).toEqual(['req-new']);
    expect(responses(peer)).toHaveLength(0);
  });

  it('SPEC §6 a response over the result limit becomes limit_exceeded (resultBytes)', async () => {
    const { sessionId, peer } = await openWith(async () => ok('x'.repeat(50_000)));
    const frame = requestFrame('req-big', sessionId, contextOp);
    frame.limits.resultBytes = 1_000;
    relay.send(peer, frame);
    // The overhead allowance is 16 KB, so 50 KB of data is over 1 KB + overhead.
    await vi.waitFor(() => expect(responses(peer)).toHaveLength(1));
    const outcome = responses(peer)[0]?.outcome;
    expect(outcome?.ok).toBe(false);
    if (outcome?.ok === false) {
      expect(outcome.error.code).toBe('limit_exceeded');
      expect(outcome.error.details).toEqual({ limit: 'resultBytes', max: 1_000 });
    }
  });

  it('a handler that throws answers internal_error instead of leaving the request open', async () => {
    const { sessionId, peer } = await openWith(() => Promise.reject(new Error('boom')));
    relay.send(peer, requestFrame('req-x', sessionId, contextOp));
    await vi.waitFor(() => expect(responses(peer)).toHaveLength(1));
    const outcome = responses(peer)[0]?.outcome;
    expect(outcome?.ok === false && outcome.error.code).toBe('internal_error');
    expect(JSON.stringify(outcome)).not.toContain('boom');
  });

  it('a request for a session this socket does not hold answers session_not_found', async () => {
    const { peer } = await openWith(async () => ok(null));
    relay.send(peer, requestFrame('req-lost', 'no-such-session', contextOp));
    await vi.waitFor(() => expect(responses(peer)).toHaveLength(1));
    const outcome = responses(peer)[0]?.outcome;
    expect(outcome?.ok === false && outcome.error.code).toBe('session_not_found');
  });
});

describe('SPEC §2 session frames', () => {
  it('update, detach and close send their frames for the kept session', async () => {
    const { session, sessionId, peer } = await openWith(async () => ok(null));
    session.update({ title: 'Renamed', grant: 'read' }, catalog);
    session.detach();
    session.close();
    await vi.waitFor(() => expect(peer.frames.some((f) => f.t === 'session.close')).toBe(true));
    const tail = peer.frames.filter((f) => f.t === 'session.update' || f.t === 'detach' || f.t === 'session.close');
    expect(tail).toEqual([
      { t: 'session.update', sessionId, info: { title: 'Renamed', grant: 'read' }, catalog },
      { t: 'detach', sessionId },
      { t: 'session.close', sessionId },
    ]);
  });

  it('attachments frames reach the session status', async () => {
    const { session, sessionId, peer } = await openWith(async () => ok(null));
    const list = [
      { attachmentId: 'a1', clientName: 'Claude', transport: 'stdio' as const, attachedAt: '2026-01-01T00:00:00Z' },
    ];
    relay.send(peer, { t: 'attachments', sessionId, list });
    await vi.waitFor(() => expect(session.status().attachments).toEqual(list));
  });
});

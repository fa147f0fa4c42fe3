import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WebSocketServer } from 'ws';
import {
  CLOSE_CODES,
  RELAY_BATCH_SUBPROTOCOL,
  RELAY_CONTEXT_SUBPROTOCOL,
  contextFrame,
  contextOf,
  requestRef,
  type BrowserFrame,
  type CatalogDocument,
  type RequestFrame,
} from '../../protocol/index.js';
import type { RelayClient } from './relayClient.js';
import { createMemoryCredentialStore } from './browserCredentials.js';
import type { RequestHandler } from './clientSessions.js';
import { knownCredential, listenScriptedRelay } from '../testing/listeningRelay.js';
import type { ScriptedRelay } from '../testing/scriptedRelay.js';
import { requestFrame, type PeerRecord } from '../testing/scriptedRelay.js';
import { testRelayClient } from '../testing/testRelayClient.js';

const catalog: CatalogDocument = { controls: [], channels: [] };
const seen: RequestFrame[] = [];
const record: RequestHandler = (request) => {
  seen.push(request);
  return Promise.resolve({ environment: 'paper', outcome: { ok: true, data: request.id } });
};

let wss: WebSocketServer;
let relay: ScriptedRelay;
let connection: RelayClient;

afterEach(async () => {
  seen.length = 0;
  connection.close();
  for (const client of wss.clients) client.terminate();
  await new Promise((resolve) => wss.close(resolve));
  expect(relay.invalidFrames).toBe(0);
});

/** A scripted relay selecting `protocol`, one session open on it; its id and the peer. */
async function openOn(protocol: string): Promise<{ sessionId: string; peer: PeerRecord }> {
  let url: string;
  ({ wss, relay, url } = await listenScriptedRelay({
    handleProtocols: (offered) => offered.has(protocol) && protocol,
  }));
  relay.credential = knownCredential();
  connection = testRelayClient(url, createMemoryCredentialStore(relay.credential));
  const session = connection.openSession({ info: { title: 'Tab', environment: 'paper' }, catalog, handler: record });
  connection.start();
  await vi.waitFor(() => expect(session.status().open).toBe(true));
  return { sessionId: session.status().sessionId!, peer: relay.latest! };
}

const responses = (peer: PeerRecord) =>
  peer.frames.filter((f): f is Extract<BrowserFrame, { t: 'response' }> => f.t === 'response');

const op = { kind: 'context', target: { scope: 'session' } } as const;

describe('SPEC §9 call contexts, browser end', () => {
  it('a context sent once, then requests naming it: each handled as its full request frame', async () => {
    const { sessionId, peer } = await openOn(RELAY_CONTEXT_SUBPROTOCOL);
    const first = requestFrame('r1', sessionId, op);
    const second = requestFrame('r2', sessionId, op, { deadlineMs: 1234 });
    relay.send(peer, contextFrame(7, contextOf(first)));
    relay.send(peer, requestRef(first, 7));
    relay.send(peer, requestRef(second, 7));
    await vi.waitFor(() => expect(responses(peer)).toHaveLength(2));
    expect(seen).toEqual([first, second]);
    expect(responses(peer).map((r) => r.outcome)).toEqual([
      { ok: true, data: 'r1' },
      { ok: true, data: 'r2' },
    ]);
  });

  it('a request naming a key this socket does not hold is answered internal_error naming it, and nothing runs', async () => {
    const { sessionId, peer } = await openOn(RELAY_CONTEXT_SUBPROTOCOL);
    const request = requestFrame('r1', sessionId, op);
    relay.send(peer, requestRef(request, 3));
    await vi.waitFor(() => expect(responses(peer)).toHaveLength(1));
    expect(responses(peer)[0]).toMatchObject({
      id: 'r1',
      environment: null,
      outcome: { ok: false, error: { code: 'internal_error' } },
    });
    const outcome = responses(peer)[0]!.outcome;
    expect(outcome.ok === false && outcome.error.message).toContain('call context 3');
    expect(seen).toEqual([]);
    // The socket stays: a context and a request naming it work afterwards.
    relay.send(peer, contextFrame(3, contextOf(request)));
    relay.send(peer, requestRef({ ...request, id: 'r2' }, 3));
    await vi.waitFor(() => expect(responses(peer)).toHaveLength(2));
    expect(peer.closedWith).toBeNull();
  });

  it('a context under a key that is not new closes the socket with 4400: a key is never redefined', async () => {
    const { sessionId, peer } = await openOn(RELAY_CONTEXT_SUBPROTOCOL);
    const request = requestFrame('r1', sessionId, op);
    relay.send(peer, contextFrame(4, contextOf(request)));
    relay.send(peer, contextFrame(4, { ...contextOf(request), adapter: { maxAccess: 'trade', allowControls: null } }));
    await vi.waitFor(() => expect(peer.closedWith).toBe(CLOSE_CODES.malformed));
  });

  it.each([
    ['a context', (r: RequestFrame) => contextFrame(0, contextOf(r))],
    ['a request naming one', (r: RequestFrame) => requestRef(r, 0)],
  ])('%s on a socket that negotiated batches alone closes it with 4400', async (_name, frameOf) => {
    const { sessionId, peer } = await openOn(RELAY_BATCH_SUBPROTOCOL);
    relay.send(peer, frameOf(requestFrame('r1', sessionId, op)));
    await vi.waitFor(() => expect(peer.closedWith).toBe(CLOSE_CODES.malformed));
    expect(seen).toEqual([]);
  });
});

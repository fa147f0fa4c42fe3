import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WebSocketServer } from 'ws';
import {
  CLOSE_CODES,
  RELAY_BATCH_SUBPROTOCOL,
  RELAY_SUBPROTOCOL,
  type BrowserFrame,
  type CatalogDocument,
} from '../../protocol/index.js';
import type { RelayClient } from './relayClient.js';
import { createMemoryCredentialStore } from './browserCredentials.js';
import type { RelaySession, RequestHandler } from './clientSessions.js';
import { knownCredential, listenScriptedRelay } from '../testing/listeningRelay.js';
import type { ScriptedRelay } from '../testing/scriptedRelay.js';
import { requestFrame, type PeerRecord } from '../testing/scriptedRelay.js';
import { testRelayClient } from '../testing/testRelayClient.js';

const catalog: CatalogDocument = { controls: [], channels: [] };
const echo: RequestHandler = (request) =>
  Promise.resolve({ environment: 'paper', outcome: { ok: true, data: request.id } });

let wss: WebSocketServer;
let relay: ScriptedRelay;
let connection: RelayClient;

afterEach(async () => {
  connection.close();
  for (const client of wss.clients) client.terminate();
  await new Promise((resolve) => wss.close(resolve));
  expect(relay.invalidFrames).toBe(0);
});

/** A scripted relay selecting `protocol` (a server older than batches selects the relay's alone). */
async function serve(protocol: string): Promise<string> {
  let url: string;
  ({ wss, relay, url } = await listenScriptedRelay({
    handleProtocols: (offered) => offered.has(protocol) && protocol,
  }));
  relay.credential = knownCredential();
  return url;
}

/** Connects with `sessions` sessions answering with their request's id; resolves once they are open. */
async function openWith(url: string, sessions = 1): Promise<{ opened: RelaySession[]; peer: PeerRecord }> {
  connection = testRelayClient(url, createMemoryCredentialStore(relay.credential));
  const opened = Array.from({ length: sessions }, (_, i) =>
    connection.openSession({ info: { title: `Tab ${i}`, environment: 'paper' }, catalog, handler: echo }),
  );
  connection.start();
  await vi.waitFor(() => expect(opened.every((s) => s.status().open)).toBe(true));
  return { opened, peer: relay.latest! };
}

const responseIds = (peer: PeerRecord) =>
  peer.frames.filter((f): f is Extract<BrowserFrame, { t: 'response' }> => f.t === 'response').map((f) => f.id);

describe('SPEC §9 relay batches, browser end', () => {
  it('8 requests in one message each get their own answer, and answers of one turn share messages', async () => {
    const { opened, peer } = await openWith(await serve(RELAY_BATCH_SUBPROTOCOL));
    const sessionId = opened[0]!.status().sessionId!;
    const ids = Array.from({ length: 8 }, (_, i) => `req-${i}`);
    const before = peer.messageSizes.length;
    relay.send(
      peer,
      JSON.stringify(ids.map((id) => requestFrame(id, sessionId, { kind: 'context', target: { scope: 'session' } }))),
    );
    await vi.waitFor(() => expect(responseIds(peer)).toHaveLength(8));
    expect(responseIds(peer)).toEqual(ids);
    expect(
      peer.frames.filter((f) => f.t === 'response').map((f) => (f as { outcome: { data?: unknown } }).outcome.data),
    ).toEqual(ids);
    expect(peer.messageSizes.slice(before).length).toBeLessThan(8);
  });

  it('a lone answer goes as itself', async () => {
    const { opened, peer } = await openWith(await serve(RELAY_BATCH_SUBPROTOCOL));
    const before = peer.messageSizes.length;
    relay.send(
      peer,
      requestFrame('alone', opened[0]!.status().sessionId!, { kind: 'context', target: { scope: 'session' } }),
    );
    await vi.waitFor(() => expect(responseIds(peer)).toEqual(['alone']));
    expect(peer.messageSizes.slice(before)).toEqual([1]);
  });

  it('frames sent in the turn of our own close go out before it', async () => {
    const { peer } = await openWith(await serve(RELAY_BATCH_SUBPROTOCOL), 2);
    connection.close();
    await vi.waitFor(() => expect(peer.closedWith).not.toBeNull());
    expect(peer.frames.filter((f) => f.t === 'session.close')).toHaveLength(2);
    expect(peer.messageSizes.at(-1)).toBe(2);
  });

  it('an old server (tradescript.relay.v1 only) gets one frame per message, and an array from it closes 4400', async () => {
    const url = await serve(RELAY_SUBPROTOCOL);
    const { peer } = await openWith(url, 2);
    connection.close();
    await vi.waitFor(() => expect(peer.closedWith).not.toBeNull());
    expect(peer.frames.filter((f) => f.t === 'session.close')).toHaveLength(2);
    expect(peer.messageSizes.every((n) => n === 1)).toBe(true);
    const again = await openWith(url);
    relay.send(
      again.peer,
      JSON.stringify([
        { t: 'ping', n: 1 },
        { t: 'ping', n: 2 },
      ]),
    );
    await vi.waitFor(() => expect(again.peer.closedWith).toBe(CLOSE_CODES.malformed));
    expect(again.peer.frames.filter((f) => f.t === 'pong')).toEqual([]);
  });
});

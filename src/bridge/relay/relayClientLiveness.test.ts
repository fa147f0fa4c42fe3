import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocketServer } from 'ws';
import { CLOSE_CODES } from '../../protocol/index.js';
import { DEFAULT_BACKOFF } from './backoff.js';
import type { Clock } from './clock.js';
import type { RelayClient } from './relayClient.js';
import { type RelayClientOptions } from './relayClient.js';
import { createMemoryCredentialStore } from './browserCredentials.js';
import { ManualClock } from '../testing/manualClock.js';
import { knownCredential, listenScriptedRelay } from '../testing/listeningRelay.js';
import type { ScriptedRelay } from '../testing/scriptedRelay.js';
import { testRelayClient } from '../testing/testRelayClient.js';

let wss: WebSocketServer;
let relay: ScriptedRelay;
let url: string;
let connection: RelayClient | null = null;

beforeEach(async () => {
  ({ wss, relay, url } = await listenScriptedRelay());
  relay.credential = knownCredential();
});

afterEach(async () => {
  connection?.close();
  connection = null;
  for (const client of wss.clients) client.terminate();
  await new Promise((resolve) => wss.close(resolve));
  expect(relay.invalidFrames).toBe(0);
});

function start(extra: Partial<RelayClientOptions> = {}): RelayClient {
  connection = testRelayClient(url, createMemoryCredentialStore(relay.credential), extra);
  connection.start();
  return connection;
}

describe('SPEC §9 malformed frames', () => {
  it.each([
    ['an unknown frame type', '{"t":"bogus"}'],
    ['text that is not JSON', 'not json'],
    ['a request missing its fields', '{"t":"request","id":"r1"}'],
  ])('%s closes the socket with 4400 and reconnects', async (_name, text) => {
    const c = start();
    await vi.waitFor(() => expect(c.status().state).toBe('paired'));
    relay.send(relay.peers[0]!, text);
    await vi.waitFor(() => expect(relay.peers[0]?.closedWith).toBe(CLOSE_CODES.malformed));
    await vi.waitFor(() => expect(relay.peers[1]?.welcomed).toBe(true));
    expect(relay.peers[1]?.frames[0]).toMatchObject({ t: 'hello', auth: { kind: 'credential' } });
  });

  it('a frame other than welcome before welcome is foreign: 4400', async () => {
    relay.muted = true;
    const c = start();
    await vi.waitFor(() => expect(relay.peers[0]?.frames).toHaveLength(1));
    relay.send(relay.peers[0]!, { t: 'cancel', id: 'r1' });
    await vi.waitFor(() => expect(relay.peers[0]?.closedWith).toBe(CLOSE_CODES.malformed));
    expect(c.status().state).not.toBe('paired');
  });
});

describe('SPEC §9 heartbeat', () => {
  it('a server ping is answered with a pong of the same number', async () => {
    const c = start();
    await vi.waitFor(() => expect(c.status().state).toBe('paired'));
    relay.send(relay.peers[0]!, { t: 'ping', n: 7 });
    await vi.waitFor(() => expect(relay.framesOf('pong')).toEqual([{ t: 'pong', n: 7 }]));
  });

  it('the bridge pings at the interval welcome names', async () => {
    relay.heartbeatMs = 20;
    start();
    await vi.waitFor(() => expect(relay.framesOf('ping').length).toBeGreaterThanOrEqual(3));
    expect(
      relay
        .framesOf('ping')
        .slice(0, 3)
        .map((p) => p.n),
    ).toEqual([0, 1, 2]);
  });

  it('a socket silent for the timeout is closed (4420) and reconnected', async () => {
    const c = start({ heartbeat: { silenceMs: 150 } });
    await vi.waitFor(() => expect(c.status().state).toBe('paired'));
    relay.muted = true;
    await vi.waitFor(() => expect(relay.peers[0]?.closedWith).toBe(CLOSE_CODES.heartbeatTimeout));
    relay.muted = false;
    await vi.waitFor(() => expect(relay.peers.some((p, i) => i > 0 && p.welcomed)).toBe(true));
    await vi.waitFor(() => expect(c.status().state).toBe('paired'));
  });
});

describe('SPEC §9 reconnect backoff', () => {
  it('delays grow to the cap and are jittered (full jitter over the growing ceiling)', async () => {
    // Nothing listens on this port once the server is closed: every attempt fails.
    await new Promise((resolve) => wss.close(resolve));
    const silenceMs = 60_000;
    const delays: number[] = [];
    const clock: Clock = {
      setTimeout: (fn, ms) => {
        if (ms === silenceMs) return setTimeout(fn, ms);
        delays.push(ms);
        return setTimeout(fn, 0); // run the reconnect now; only the requested delay matters
      },
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
      now: () => Date.now(),
    };
    const jitter = [0.5, 0.9, 0.1, 0.7, 0.3, 0.99, 0.6, 0.2, 0.8];
    let draws = 0;
    const c = start({ clock, heartbeat: { silenceMs }, random: () => jitter[draws++ % jitter.length]! });
    await vi.waitFor(() => expect(delays.length).toBeGreaterThanOrEqual(9));
    c.close();
    const ceilings = delays.slice(0, 9).map((_, i) => Math.min(DEFAULT_BACKOFF.capMs, DEFAULT_BACKOFF.baseMs * 2 ** i));
    expect(ceilings).toEqual([250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
    expect(delays.slice(0, 9)).toEqual(ceilings.map((ceiling, i) => Math.floor(jitter[i]! * ceiling)));
    expect(c.status().state).toBe('disconnected');
  });

  it('a socket that stayed up past the stable time resets the growth; a quick drop does not', async () => {
    const clock = new ManualClock();
    const c = start({ clock, random: () => 1 });
    const reconnectDelays = (): number[] => clock.requested.filter((ms) => ms <= DEFAULT_BACKOFF.capMs);
    const dropAndWait = async (peers: number): Promise<void> => {
      await vi.waitFor(() => expect(c.status().state).toBe('paired'));
      relay.latest?.socket.terminate();
      await vi.waitFor(() => expect(c.status().state).toBe('disconnected'));
      clock.advance(reconnectDelays().at(-1)!);
      await vi.waitFor(() => expect(relay.peers).toHaveLength(peers));
    };
    await dropAndWait(2);
    await dropAndWait(3);
    await vi.waitFor(() => expect(c.status().state).toBe('paired'));
    clock.advance(DEFAULT_BACKOFF.stableMs);
    await dropAndWait(4);
    expect(reconnectDelays()).toEqual([250, 500, 250]);
  });
});

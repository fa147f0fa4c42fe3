import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  CLOSE_CODES,
  RELAY_BATCH_SUBPROTOCOL,
  RELAY_CONTEXT_SUBPROTOCOL,
  RELAY_SUBPROTOCOL,
  relaySubprotocols,
} from '../../protocol/index.js';
import type { Hub } from '../hub/hub.js';
import { createLogger } from '../log.js';
import { originAllowlist } from './originPolicy.js';
import type { RelaySocket } from './relaySocket.js';
import { createRelayUpgrade, type RelayUpgrade } from './upgrade.js';

const TERMINAL = 'http://127.0.0.1:7392';
let http: Server | null = null;
let relay: RelayUpgrade | null = null;

afterEach(async () => {
  relay?.close();
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
  http = relay = null;
});

/** The relay endpoint on a bare HTTP server; the hub only records the sockets handed to it. */
async function start(bearerToken: string | null = null) {
  const lines: string[] = [];
  const handed: string[] = [];
  const sockets: RelaySocket[] = [];
  const hub = {
    connect: (socket: RelaySocket, peer: { origin: string }) => {
      handed.push(peer.origin);
      sockets.push(socket);
    },
  };
  http = createServer((_req, res) => res.writeHead(404).end());
  const upgrade = createRelayUpgrade({
    hub: hub as unknown as Hub,
    logger: createLogger('info', (line) => lines.push(line)),
    originAllowed: originAllowlist(() => [TERMINAL]),
    bound: () => ({ host: '127.0.0.1', port: (http!.address() as AddressInfo).port }),
    bearerToken,
  });
  relay = upgrade;
  http.on('upgrade', (req, socket, head) => upgrade.handle(req, socket, head));
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  return { url: `ws://127.0.0.1:${(http.address() as AddressInfo).port}/relay`, lines, handed, sockets };
}

interface Outcome {
  status: number;
  close?: { code: number; reason: string };
  messages: number;
}

/** Opens a socket with these headers and, if it opens, says hello and waits for the close. */
function attempt(url: string, headers: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, ['tradescript.relay.v1'], { headers });
    let messages = 0;
    ws.on('message', () => (messages += 1));
    ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, messages }));
    ws.once('open', () => {
      ws.send(
        JSON.stringify({ t: 'hello', v: 1, agent: { kind: 'page', version: 't' }, auth: { kind: 'pair', code: 'X' } }),
      );
    });
    ws.once('close', (code, reason) => resolve({ status: 101, close: { code, reason: reason.toString() }, messages }));
  });
}

describe('SPEC §9 a refused relay upgrade says why', () => {
  it('a well-formed origin off the allowlist is accepted only to be closed with originNotAllowed and the flag that admits it; nothing else reaches it, and the log names it', async () => {
    const { url, lines, handed } = await start();
    const outcome = await attempt(url, { origin: 'https://terminal.example' });
    expect(outcome).toEqual({
      status: 101,
      close: {
        code: CLOSE_CODES.originNotAllowed,
        reason: 'this origin is not allowed: start the server with --allowed-origin https://terminal.example',
      },
      messages: 0,
    });
    expect(handed).toEqual([]);
    expect(lines.join('\n')).toMatch(
      /relay upgrade refused reason="origin" origin="https:\/\/terminal\.example" admit="--allowed-origin https:\/\/terminal\.example"/,
    );
  });

  it('no Origin, or one that is not an origin, is a plain 403 and its text is not logged', async () => {
    const { url, lines, handed } = await start();
    for (const origin of ['null', `${TERMINAL}/path`, 'http://127.0.0.1:7392.evil-marker.example']) {
      expect(await attempt(url, { origin }), origin).toEqual({ status: 403, messages: 0 });
    }
    expect(await attempt(url, {})).toEqual({ status: 403, messages: 0 });
    expect(handed).toEqual([]);
    expect(lines).toHaveLength(4);
    expect(lines.join('\n')).not.toMatch(/evil-marker|\/path/);
  });

  it('an allowed origin is handed to the hub', async () => {
    const { url, handed } = await start();
    const ws = new WebSocket(url, ['tradescript.relay.v1'], { headers: { origin: TERMINAL } });
    await new Promise((resolve) => ws.once('open', resolve));
    expect(handed).toEqual([TERMINAL]);
    ws.terminate();
  });
});

describe('SPEC §9 relay batches and call contexts are negotiated on the upgrade', () => {
  /** Opens a socket offering `protocols`; the subprotocol selected and whether the hub's end batches. */
  async function negotiate(protocols: string[], bearerToken: string | null = null) {
    const { url, sockets } = await start(bearerToken);
    const ws = new WebSocket(url, protocols, { headers: { origin: TERMINAL } });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`status ${res.statusCode}`)));
    });
    ws.terminate();
    return { selected: ws.protocol, batch: sockets[0]?.batch, contexts: sockets[0]?.contexts };
  }

  it('a current browser gets batches with call contexts', async () => {
    expect(await negotiate(relaySubprotocols(null))).toEqual({
      selected: RELAY_CONTEXT_SUBPROTOCOL,
      batch: true,
      contexts: true,
    });
  });

  it('a browser older than call contexts, offering batches first, gets batches alone', async () => {
    expect(await negotiate([RELAY_BATCH_SUBPROTOCOL, RELAY_SUBPROTOCOL])).toEqual({
      selected: RELAY_BATCH_SUBPROTOCOL,
      batch: true,
      contexts: false,
    });
  });

  it('batches are chosen wherever the browser lists them', async () => {
    expect(await negotiate([RELAY_SUBPROTOCOL, RELAY_BATCH_SUBPROTOCOL])).toEqual({
      selected: RELAY_BATCH_SUBPROTOCOL,
      batch: true,
      contexts: false,
    });
  });

  it('an old browser offering only tradescript.relay.v1, or nothing, gets one frame per message', async () => {
    expect(await negotiate([RELAY_SUBPROTOCOL])).toEqual({
      selected: RELAY_SUBPROTOCOL,
      batch: false,
      contexts: false,
    });
    relay?.close();
    await new Promise((resolve) => http!.close(resolve));
    expect(await negotiate([])).toEqual({ selected: '', batch: false, contexts: false });
  });

  it('a bearer token still rides as a subprotocol beside batches and is never selected', async () => {
    const token = 'relay-token-0123456789';
    expect(await negotiate(relaySubprotocols(token), token)).toEqual({
      selected: RELAY_CONTEXT_SUBPROTOCOL,
      batch: true,
      contexts: true,
    });
    relay?.close();
    await new Promise((resolve) => http!.close(resolve));
    await expect(negotiate(relaySubprotocols('wrong-token-0123456789'), token)).rejects.toThrow('status 403');
  });
});

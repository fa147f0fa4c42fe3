import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CLOSE_CODES } from '../../protocol/index.js';
import type { Hub } from '../hub/hub.js';
import { createLogger } from '../log.js';
import { originAllowlist } from './originPolicy.js';
import { createRelayUpgrade, type RelayUpgrade } from './upgrade.js';

const TERMINAL = 'http://127.0.0.1:7392';
let http: Server | null = null;
let relay: RelayUpgrade | null = null;

afterEach(async () => {
  relay?.close();
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
  http = relay = null;
});

/** The relay endpoint on a bare HTTP server; the hub only counts the sockets handed to it. */
async function start() {
  const lines: string[] = [];
  const handed: string[] = [];
  const hub = { connect: (_socket: unknown, peer: { origin: string }) => void handed.push(peer.origin) };
  http = createServer((_req, res) => res.writeHead(404).end());
  const upgrade = createRelayUpgrade({
    hub: hub as unknown as Hub,
    logger: createLogger('info', (line) => lines.push(line)),
    originAllowed: originAllowlist(() => [TERMINAL]),
    bound: () => ({ host: '127.0.0.1', port: (http!.address() as AddressInfo).port }),
    bearerToken: null,
  });
  relay = upgrade;
  http.on('upgrade', (req, socket, head) => upgrade.handle(req, socket, head));
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  return { url: `ws://127.0.0.1:${(http.address() as AddressInfo).port}/relay`, lines, handed };
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

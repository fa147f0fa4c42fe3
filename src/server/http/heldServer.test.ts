import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { heldServer, type HeldServer } from './heldServer.js';
import { closeServer, listen } from './listen.js';

const servers: HeldServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => closeServer(s.http)));
});

async function held(onHeld: () => void = () => undefined) {
  const server = heldServer(onHeld);
  servers.push(server);
  await listen(server.http, { host: '127.0.0.1', port: 0 });
  return { server, port: (server.http.address() as AddressInfo).port };
}

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Resolves once the server has `count` requests or upgrades waiting (it asks for its routes with the first). */
async function arrived(server: HeldServer, count: number, seen: () => number): Promise<void> {
  while (seen() < count) await new Promise((resolve) => setImmediate(resolve));
  void server;
}

describe('a held port (SPEC §12: ready before the routes load; nothing that arrives meanwhile is dropped)', () => {
  it('requests that arrive before the routes wait, ask for them once, and are answered in order once served', async () => {
    let asked = 0;
    const { server, port } = await held(() => asked++);
    let arrivals = 0;
    server.http.prependListener('request', () => arrivals++);
    const answers = [get(port, '/a'), get(port, '/b')];
    await arrived(server, 2, () => arrivals);
    expect(asked).toBe(1);
    const order: string[] = [];
    server.serve({
      request: (req, res) => {
        order.push(req.url ?? '');
        res.end(`routed ${req.url}`);
      },
      upgrade: (_req, socket) => socket.destroy(),
    });
    expect((await Promise.all(answers)).map((a) => a.body)).toEqual(['routed /a', 'routed /b']);
    expect(order).toEqual(['/a', '/b']);
    expect((await get(port, '/c')).body).toBe('routed /c');
    expect(asked).toBe(1);
  });

  it('a WebSocket upgrade that arrives before the routes waits and is handed to them', async () => {
    const { WebSocketServer } = await import('ws');
    const wss = new WebSocketServer({ noServer: true });
    const { server, port } = await held();
    let upgrades = 0;
    server.http.prependListener('upgrade', () => upgrades++);
    const ws = new WebSocket(`ws://127.0.0.1:${port}/relay`);
    const message = new Promise((resolve, reject) =>
      ws.once('message', (d) => resolve(String(d))).once('error', reject),
    );
    await arrived(server, 1, () => upgrades);
    server.serve({
      request: (_req, res) => res.end(),
      upgrade: (req, socket, head) => wss.handleUpgrade(req, socket, head, (client) => client.send('hi')),
    });
    expect(await message).toBe('hi');
    ws.terminate();
    wss.close();
  });

  it('routes that cannot load: what waited and what comes later gets 503, an upgrade a 503 too', async () => {
    const { server, port } = await held();
    let arrivals = 0;
    server.http.prependListener('request', () => arrivals++);
    const waiting = get(port, '/a');
    await arrived(server, 1, () => arrivals);
    server.fail();
    expect(await waiting).toMatchObject({ status: 503 });
    expect(await get(port, '/b')).toMatchObject({ status: 503 });
    const ws = new WebSocket(`ws://127.0.0.1:${port}/relay`);
    const status = await new Promise((resolve) =>
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode)),
    );
    expect(status).toBe(503);
  });
});

/**
 * Test support: a loopback TCP proxy in front of the relay, so an end-to-end
 * test can cut a real browser's WebSocket (a network drop: no close frame)
 * and refuse reconnects for a while, without touching the server or the page.
 * The upgrade request's `Host` is rewritten to the relay's own, as a
 * transparent network path would deliver it; `Origin` passes unchanged.
 */
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/** A running proxy. */
export interface RelayProxy {
  /** The proxy's port on 127.0.0.1. */
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections open now. */
  readonly open: number;
  /** Cuts every open connection at once (both ends see an abnormal close). */
  drop(): number;
  /** While down, new connections are cut as soon as they arrive. */
  down: boolean;
  close(): Promise<void>;
}

const HEAD_END = '\r\n\r\n';
const MAX_HEAD = 16 * 1024;

/** Starts a proxy to the relay at `target` (the ready line's relay host and port). */
export async function startRelayProxy(target: { host: string; port: number }): Promise<RelayProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let accepted = 0;
  const hostHeader = `Host: ${target.host}:${target.port}`;
  const server = createServer((client) => {
    accepted += 1;
    if (proxy.down) return void client.destroy();
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of pair) {
      socket.on('error', end);
      socket.on('close', end);
    }
    let head = Buffer.alloc(0);
    const readHead = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const at = head.indexOf(HEAD_END);
      if (at === -1) {
        if (head.length > MAX_HEAD) end();
        return;
      }
      client.off('data', readHead);
      const text = head
        .subarray(0, at)
        .toString('latin1')
        .replace(/^host:.*$/im, hostHeader);
      upstream.write(Buffer.concat([Buffer.from(text, 'latin1'), head.subarray(at)]));
      client.pipe(upstream);
      upstream.pipe(client);
    };
    client.on('data', readHead);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: RelayProxy = {
    port: (server.address() as AddressInfo).port,
    get accepted() {
      return accepted;
    },
    get open() {
      return pairs.size;
    },
    down: false,
    drop() {
      const cut = pairs.size;
      for (const [client, upstream] of [...pairs]) {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      }
      pairs.clear();
      return cut;
    },
    close: () =>
      new Promise<void>((resolve) => {
        proxy.drop();
        server.close(() => resolve());
      }),
  };
  return proxy;
}

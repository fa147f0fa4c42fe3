/**
 * Test support: the one address in front of a cluster's nodes (SPEC §14), as
 * a vendor's load balancer would be — a loopback TCP proxy that sends each new
 * connection to the next node that accepts it (round robin, skipping nodes
 * that are down). Bytes pass unchanged, `Host` included (nodes are started
 * with `--public-url` naming the proxy). Not product code.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** A running proxy. */
export interface ClusterProxy {
  readonly port: number;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** The node ports new connections go to, in turn. */
  targets: number[];
  /** Which target port each accepted connection reached, in order. */
  readonly routed: number[];
  /** Cuts every open connection (both ends see an abnormal close). */
  drop(): void;
  close(): Promise<void>;
}

function reach(port: number): Promise<Socket | null> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(socket));
    socket.once('error', () => resolve(null));
  });
}

/** Starts a proxy on a free loopback port. */
export async function startClusterProxy(targets: number[] = []): Promise<ClusterProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let next = 0;
  const routed: number[] = [];
  const server = createServer((client) => {
    client.pause();
    client.on('error', () => client.destroy());
    void (async () => {
      for (let tries = 0; tries < proxy.targets.length; tries++) {
        const port = proxy.targets[next++ % proxy.targets.length];
        if (port === undefined) break;
        const upstream = await reach(port);
        if (!upstream) continue;
        if (client.destroyed) return void upstream.destroy();
        routed.push(port);
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
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
        return;
      }
      client.destroy();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const proxy: ClusterProxy = {
    port,
    origin: `http://127.0.0.1:${port}`,
    targets,
    routed,
    drop() {
      for (const [client, upstream] of [...pairs]) {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      }
      pairs.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        proxy.drop();
        server.close(() => resolve());
      }),
  };
  return proxy;
}

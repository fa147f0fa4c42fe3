/**
 * A real `redis-server` (Debian's package; `.ci/run` installs it) on a free
 * loopback port with its own data directory, for cluster tests (SPEC §14).
 * It persists to an append-only file, so a restart keeps what was written
 * (as a deployment's Redis does, docs/deploy.md).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian installs it; `TRADESCRIPT_REDIS_SERVER` overrides. */
export const REDIS_SERVER_BIN = process.env.TRADESCRIPT_REDIS_SERVER ?? '/usr/bin/redis-server';

/** A running Redis. */
export interface TestRedis {
  readonly port: number;
  /** `redis://127.0.0.1:PORT` */
  readonly url: string;
  /** Stops it (SIGTERM: it writes its data first); `start()` brings it back on the same port and data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its data. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts a Redis; throws with a clear message when the binary is missing. */
export async function startTestRedis(): Promise<TestRedis> {
  if (!existsSync(REDIS_SERVER_BIN)) {
    throw new Error(
      `${REDIS_SERVER_BIN} is missing: apt-get install redis-server (.ci/run does), or set TRADESCRIPT_REDIS_SERVER.`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'tradescript-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    const proc = spawn(
      REDIS_SERVER_BIN,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--appendonly',
        'yes',
        '--save',
        '',
        '--daemonize',
        'no',
      ],
      { stdio: 'ignore' },
    );
    child = proc;
    const until = Date.now() + 10_000;
    while (!(await accepting(port))) {
      if (proc.exitCode !== null || Date.now() > until) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const stop = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    await exited;
  };
  await start();
  process.once('exit', () => {
    // A test process that dies must not leave its Redis behind.
    (child as ChildProcess | null)?.kill('SIGKILL');
  });
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The node's two Redis connections (SPEC §14), through `ioredis`, loaded only
 * in cluster mode: one for commands and publishing, one subscribed to the
 * node's inbox and the events channel. Commands fail at once while Redis is
 * away (no offline queue), so a request then fails fast instead of waiting;
 * both connections reconnect on their own and the subscriptions come back.
 */
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import type { Logger } from '../log.js';
import { SCRIPTS, type ClusterScripts } from './scripts.js';

/** A command connection with the cluster's scripts defined on it. */
export type CommandClient = RedisClient & ClusterScripts;

/** The node's connections. */
export interface RedisClients {
  readonly cmd: CommandClient;
  readonly sub: RedisClient;
  /** True while both connections are ready. */
  ready(): boolean;
  /** Called each time both are ready again after either was away (and the first time). */
  onReady(listener: () => void): void;
  /** Called when either connection drops. */
  onDown(listener: () => void): void;
  close(): Promise<void>;
}

/** Timings; tests shorten them. */
export interface RedisTiming {
  /** A command not answered in this time fails (Redis hung or unreachable). */
  commandTimeoutMs: number;
  /** The longest pause between reconnect attempts. */
  maxRetryDelayMs: number;
}

/** Defaults. */
export const DEFAULT_REDIS_TIMING: RedisTiming = { commandTimeoutMs: 2_000, maxRetryDelayMs: 1_000 };

/** Opens both connections to `url`; resolves at once (readiness is reported by {@link RedisClients.ready}). */
export async function openRedis(url: string, name: string, logger: Logger, timing: RedisTiming): Promise<RedisClients> {
  const { Redis } = await import('ioredis');
  const options: RedisOptions = {
    connectionName: name,
    protocol: 2,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timing.commandTimeoutMs,
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 10), timing.maxRetryDelayMs),
    // Re-sending a forwarded request after a reconnect could deliver it twice: never.
    autoResendUnfulfilledCommands: false,
    lazyConnect: true,
  };
  const cmd = new Redis(url, options) as CommandClient;
  // The subscriber queues its SUBSCRIBE until connected; it sends nothing else.
  const sub = new Redis(url, { ...options, enableOfflineQueue: true, commandTimeout: undefined });
  for (const [command, definition] of Object.entries(SCRIPTS)) cmd.defineCommand(command, definition);
  const readyListeners: Array<() => void> = [];
  const downListeners: Array<() => void> = [];
  let up = false;
  const check = () => {
    const now = cmd.status === 'ready' && sub.status === 'ready';
    if (now === up) return;
    up = now;
    logger.info(now ? 'redis ready' : 'redis unavailable');
    for (const listener of now ? readyListeners : downListeners) listener();
  };
  for (const client of [cmd, sub]) {
    client.on('ready', check);
    client.on('close', check);
    client.on('end', check);
    // Reported through readiness; ioredis reconnects by itself.
    client.on('error', () => undefined);
  }
  void cmd.connect().catch(() => undefined);
  void sub.connect().catch(() => undefined);
  return {
    cmd,
    sub,
    ready: () => up,
    onReady: (listener) => readyListeners.push(listener),
    onDown: (listener) => downListeners.push(listener),
    async close() {
      for (const client of [cmd, sub]) {
        client.removeAllListeners('ready');
        await client.quit().catch(() => client.disconnect());
      }
    },
  };
}

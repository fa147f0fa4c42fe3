/**
 * The cluster bus on a real `redis-server` (SPEC §14): what a node's inbox
 * and the events channel hand on is what the schemas alone accept, with the
 * value zod returns; anything else published there (Redis is shared
 * infrastructure, not a trusted peer) is dropped and logged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  ClusterEventSchema,
  InboxMessageSchema,
  type ClusterEvent,
  type InboxMessage,
} from '../../protocol/wire/clusterBus.js';
import { forwardedCallRequest } from '../../testing/clusterMessages.js';
import { startTestRedis, type TestRedis } from '../../testing/redisServer.js';
import { waitUntil } from '../../testing/waitUntil.js';
import { createLogger } from '../log.js';
import { ClusterBus } from './clusterBus.js';
import { keys } from './clusterKeys.js';
import { DEFAULT_REDIS_TIMING, openRedis, type RedisClients } from './redisClients.js';

const FROM = 'n_sender000001';
const TO = 'n_receiver0001';

const REQUEST = forwardedCallRequest(`${FROM}.1`, FROM);
const OUTCOME = { t: 'outcome', id: `${FROM}.1`, outcome: { ok: true, data: { value: 'x' }, environment: 'paper' } };
const EVENT = { t: 'sessions', from: FROM, principal: 'desk-1', sessionId: null };

/** Messages each schema refuses: wrong types, unknown and prototype keys, bad ids, a missing field. */
const HOSTILE: unknown[] = [
  { ...REQUEST, deadlineMs: 0 },
  { ...REQUEST, deadlineMs: 1.5 },
  { ...REQUEST, from: 'not-a-node' },
  { ...REQUEST, principal: 'has space' },
  { ...REQUEST, extra: 1 },
  { ...REQUEST, op: { ...REQUEST.op, kind: 'eval' } },
  { ...REQUEST, limits: { ...REQUEST.limits, batchCalls: '25' } },
  { ...OUTCOME, outcome: { ok: true, data: 1, environment: 'live-ish' } },
  { ...OUTCOME, outcome: { ok: 'yes', data: 1, environment: null } },
  { t: 'outcome', id: '', outcome: OUTCOME.outcome },
  { t: 'released', id: 'x' },
];

let redis: TestRedis;
const clients: RedisClients[] = [];
const logged: string[] = [];
let sender: ClusterBus;
let receiver: ClusterBus;
const inbox: InboxMessage[] = [];
const events: ClusterEvent[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
  const logger = createLogger('warn', (line) => logged.push(line));
  const open = async (name: string) => {
    const c = await openRedis(redis.url, name, logger, DEFAULT_REDIS_TIMING);
    clients.push(c);
    await waitUntil(
      () => c.ready(),
      10_000,
      () => `${name} ready`,
    );
    return c;
  };
  sender = new ClusterBus(await open('sender'), FROM, logger);
  receiver = new ClusterBus(await open('receiver'), TO, logger);
  receiver.onInbox((m) => inbox.push(m));
  receiver.onEvent((e) => events.push(e));
  await receiver.start();
}, 30_000);

afterAll(async () => {
  for (const c of clients) await c.close();
  await redis?.close();
});

/** Publishes raw text where `channel` is heard, then a valid marker after it, and waits for the marker. */
async function publishRaw(channel: string, texts: string[]): Promise<void> {
  const before = inbox.length + events.length;
  const raw = clients[0]!.cmd;
  for (const text of texts) await raw.publish(channel, text);
  const marker = JSON.stringify({ t: 'notHere', id: `marker.${before}` });
  await raw.publish(keys.inbox(TO), marker);
  await waitUntil(
    () => inbox.some((m) => m.t === 'notHere' && m.id === `marker.${before}`),
    10_000,
    () => 'the marker',
  );
}

describe('SPEC §14 the cluster bus reads what the schemas accept, nothing else', () => {
  it('a forwarded request, its outcome and an event arrive as zod parses them', async () => {
    expect(await sender.send(TO, REQUEST as InboxMessage)).toBe('delivered');
    expect(await sender.send(TO, OUTCOME as InboxMessage)).toBe('delivered');
    await sender.broadcast(EVENT as ClusterEvent);
    await waitUntil(
      () => inbox.length >= 2 && events.length >= 1,
      10_000,
      () => 'the messages',
    );
    expect(inbox.slice(0, 2)).toStrictEqual([
      z.parse(InboxMessageSchema, REQUEST),
      z.parse(InboxMessageSchema, OUTCOME),
    ]);
    expect(events[0]).toStrictEqual(z.parse(ClusterEventSchema, EVENT));
  });

  it('malformed, mistyped, prototype-keyed and unknown-keyed messages are dropped and logged, on the inbox and the events channel', async () => {
    inbox.length = 0;
    events.length = 0;
    logged.length = 0;
    for (const message of HOSTILE) expect(z.safeParse(InboxMessageSchema, message).success).toBe(false);
    const protoKeyed = JSON.stringify(OUTCOME).replace('{"t"', '{"__proto__":{"t":"outcome"},"t"');
    const texts = [...HOSTILE.map((m) => JSON.stringify(m)), protoKeyed, 'not json', '[]', 'null'];
    await publishRaw(keys.inbox(TO), texts);
    await publishRaw(keys.events, [JSON.stringify({ ...EVENT, sessionId: 5 }), JSON.stringify({ ...EVENT, x: 1 })]);
    expect(inbox.filter((m) => m.t !== 'notHere')).toEqual([]);
    expect(events).toEqual([]);
    expect(logged.filter((line) => line.includes('malformed cluster message dropped'))).toHaveLength(texts.length + 2);
  });
});

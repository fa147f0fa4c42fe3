import { describe, expect, it } from 'vitest';
import { CLOSE_CODES, MAX_BATCH_CHARS } from '../../protocol/index.js';
import {
  TEST_HELLO as hello,
  TEST_REQUEST_OPTIONS as OPTIONS,
  TEST_SESSION_OPEN as open,
  TEST_SESSION_CONTEXT as CONTEXT,
  attachTestSocket,
  connectTestSocket,
} from '../testing/scriptedTab.js';

const connect = (batch: boolean) => connectTestSocket({ batch });
/** A batch socket with hello and a session done in one message; the session id. */
const attached = (batch = true) => attachTestSocket({ batch });

describe('SPEC §9 relay batches, server end', () => {
  it('frames a browser batched are read in order: hello, then the session it opens', async () => {
    const { client, hub } = await attached();
    expect(client.received.map((f) => f.t).slice(0, 2)).toEqual(['welcome', 'session.opened']);
    hub.close();
  });

  it('8 requests sent in one turn share one message, in order; a lone frame goes as itself', async () => {
    const { client, hub, sessionId } = await attached();
    const sizesBefore = client.messageSizes.length;
    const { attachmentId } = await hub.attach({ clientName: 'c', transport: 'stdio' });
    const answers = Array.from({ length: 8 }, () => hub.request(attachmentId, sessionId, CONTEXT, OPTIONS));
    const first = await client.next('request');
    const requests = [first, ...(await Promise.all(Array.from({ length: 7 }, () => client.next('request'))))];
    // The attachment's status frame may ride along with them.
    expect(Math.max(...client.messageSizes.slice(sizesBefore))).toBeGreaterThanOrEqual(8);
    const responses = requests.map((r) => ({
      t: 'response',
      id: r.id,
      environment: 'paper',
      outcome: { ok: true, data: r.id },
    }));
    client.sendText(JSON.stringify(responses));
    const outcomes = await Promise.all(answers);
    expect(outcomes.map((o) => (o.ok ? o.data : null))).toEqual(requests.map((r) => r.id));
    client.send({ t: 'ping', n: 4 });
    await client.next('pong');
    expect(client.messageSizes.at(-1)).toBe(1);
    hub.close();
  });

  it('one bad frame refuses the whole message: closed 4400, nothing of it acted on', async () => {
    const { client, lines } = connect(true);
    client.sendText(JSON.stringify([hello, open, { t: 'ping', n: -1, secret: 'batch-secret' }]));
    expect((await client.whenClosed()).code).toBe(CLOSE_CODES.malformed);
    expect(client.received).toEqual([]);
    expect(lines.join('\n')).not.toContain('batch-secret');
  });

  it('a batch over 32 K chars closes 4413; over 64 frames, 4400', async () => {
    const big = connect(true);
    big.client.sendText(JSON.stringify([hello, { t: 'ping', n: 1 }, 'x'.repeat(MAX_BATCH_CHARS)]));
    expect((await big.client.whenClosed()).code).toBe(CLOSE_CODES.tooLarge);
    const many = connect(true);
    many.client.sendText(JSON.stringify([hello, ...Array.from({ length: 64 }, (_, n) => ({ t: 'ping', n }))]));
    expect((await many.client.whenClosed()).code).toBe(CLOSE_CODES.malformed);
    expect(many.client.received).toEqual([]);
  });

  it('an old peer (no batches) gets one frame per message, and an array from it closes 4400 batch-not-negotiated', async () => {
    const old = connect(false);
    old.client.send(hello);
    old.client.send(open);
    const opened = await old.client.next('session.opened');
    const { attachmentId } = await old.hub.attach({ clientName: 'c', transport: 'stdio' });
    for (let i = 0; i < 3; i++) void old.hub.request(attachmentId, opened.sessionId, CONTEXT, OPTIONS);
    await Promise.all([0, 1, 2].map(() => old.client.next('request')));
    expect(old.client.messageSizes.every((n) => n === 1)).toBe(true);
    old.client.sendText(
      JSON.stringify([
        { t: 'ping', n: 1 },
        { t: 'ping', n: 2 },
      ]),
    );
    expect(await old.client.whenClosed()).toEqual({ code: CLOSE_CODES.malformed, reason: 'batch-not-negotiated' });
    expect(old.lines.join('\n')).toContain('batch-not-negotiated');
    old.hub.close();
  });

  it('frames queued in this turn go out before our own close', async () => {
    const { client, conn, hub } = await attached();
    conn.send({ t: 'ping', n: 41 });
    conn.send({ t: 'ping', n: 42 });
    conn.close(CLOSE_CODES.serverShutdown, 'bye');
    expect(client.received.filter((f) => f.t === 'ping').map((f) => (f as { n: number }).n)).toEqual([41, 42]);
    expect((await client.whenClosed()).code).toBe(CLOSE_CODES.serverShutdown);
    hub.close();
  });
});

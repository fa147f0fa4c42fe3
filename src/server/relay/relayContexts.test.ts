import { describe, expect, it } from 'vitest';
import {
  TEST_REQUEST_OPTIONS as OPTIONS,
  TEST_SESSION_CONTEXT as CONTEXT,
  attachTestSocket,
} from '../testing/scriptedTab.js';

const limits = OPTIONS.limits;
const attached = (contexts: boolean) => attachTestSocket({ batch: true, contexts });

describe('SPEC §9 call contexts, server end', () => {
  it('an attachment’s context goes once, before its first request; again, under a new key, when it changes', async () => {
    const { hub, client, sessionId } = await attached(true);
    const { attachmentId } = await hub.attach({ clientName: 'c', transport: 'stdio' });
    const ask = (options: typeof OPTIONS | Record<string, unknown> = OPTIONS) =>
      hub.request(attachmentId, sessionId, CONTEXT, options as typeof OPTIONS);
    const answer = async () => {
      const ref = await client.next('request.ref');
      client.send({ t: 'response', id: ref.id, environment: 'paper', outcome: { ok: true, data: ref.context } });
      return ref;
    };
    const first = ask();
    const context = await client.next('context');
    expect(context).toMatchObject({ key: 0, adapter: OPTIONS.adapter, limits });
    expect(context.attachment.attachmentId).toBe(attachmentId);
    expect((await answer()).context).toBe(0);
    expect(await first).toMatchObject({ ok: true, data: 0 });

    const second = ask();
    expect((await answer()).context).toBe(0);
    await second;
    const lowered = ask({ ...OPTIONS, limits: { ...limits, resultBytes: 1024 } });
    expect(await client.next('context')).toMatchObject({ key: 1, limits: { resultBytes: 1024 } });
    expect((await answer()).context).toBe(1);
    await lowered;
    // Two contexts sent for three requests; no full request frame.
    expect(client.received.filter((f) => f.t === 'context')).toHaveLength(2);
    expect(client.received.some((f) => f.t === 'request')).toBe(false);
    hub.close();
  });

  it('a socket with batches alone gets full request frames, as before', async () => {
    const { hub, client, sessionId } = await attached(false);
    const { attachmentId } = await hub.attach({ clientName: 'c', transport: 'stdio' });
    void hub.request(attachmentId, sessionId, CONTEXT, OPTIONS);
    expect(await client.next('request')).toMatchObject({ attachment: { attachmentId }, limits });
    expect(client.received.some((f) => f.t === 'context' || f.t === 'request.ref')).toBe(false);
    hub.close();
  });
});

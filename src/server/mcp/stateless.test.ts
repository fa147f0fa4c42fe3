import { afterEach, describe, expect, test } from 'vitest';
import { SESSIONS_URI } from '../../protocol/index.js';
import { mintHandle, verifyHandle } from './attachments/attachmentHandles.js';
import type { IdleClock } from './attachments/statelessAttachments.js';
import { defaultAnswer, InMemoryHub } from '../testing/testHub.js';
import {
  callEnvelope,
  connectClient,
  connectStatelessFront,
  statelessFront,
  waitFor,
  type Harness,
  type StatelessHarness,
} from '../testing/testHarness.js';

const open: Array<Harness | StatelessHarness> = [];
afterEach(async () => {
  for (const harness of open.splice(0)) await harness.close();
});

const chart = { scope: 'chart', chartId: 'main' } as const;
const trade = (extra: Record<string, unknown> = {}) => ({
  sessionId: 's-1',
  target: chart,
  controlId: 'orders.placeOrder',
  args: [{ symbol: 'EURUSD', side: 'buy', quantity: '1' }],
  context: { operationId: 'op-1' },
  ...extra,
});

/** A clock the test moves by hand; the idle timer runs when the test says so. */
function manualClock(): IdleClock & { advance(ms: number): void; tick(): void } {
  let now = 1_000_000;
  let run: (() => void) | null = null;
  return {
    now: () => now,
    setInterval: (fn) => ((run = fn), {}),
    clearInterval: () => void (run = null),
    advance: (ms) => void (now += ms),
    tick: () => run?.(),
  };
}

async function stateless(hub = new InMemoryHub(), options: Parameters<typeof connectStatelessFront>[1] = {}) {
  const harness = await connectStatelessFront(hub, options);
  open.push(harness);
  return harness;
}

describe('stateless attachments (SPEC §2, §13; docs/protocolRevisions.md)', () => {
  test('SPEC §13 a 2026-07-28 HTTP client sees the attachment argument on every tool, a connection does not', async () => {
    const modern = await stateless();
    const legacy = await connectClient();
    open.push(legacy);
    for (const tool of (await modern.client.listTools()).tools) {
      expect(tool.inputSchema.properties?.['attachment'], tool.name).toMatchObject({ type: 'string' });
    }
    for (const tool of (await legacy.client.listTools()).tools) {
      expect(tool.inputSchema.properties?.['attachment'], tool.name).toBeUndefined();
    }
    const refused = await callEnvelope(legacy, 'tradescript_get_context', {
      sessionId: 's-1',
      target: { scope: 'session' },
      attachment: 'ta1.x.y',
    });
    expect(refused.payload.error).toMatchObject({ code: 'invalid_input' });
    expect(refused.payload.error?.validation_errors[0]).toMatchObject({ path: [], code: 'unknown_field' });
  });

  test('SPEC §5 a stateless call without context.operationId gets a fresh 96-bit random id, past one pool of ids', async () => {
    const harness = await stateless();
    let handle: string | undefined;
    for (let i = 0; i < 300; i += 1) {
      const args = trade({ context: {}, ...(handle ? { attachment: handle } : {}) });
      handle = (await callEnvelope(harness, 'tradescript_call', args)).payload.meta.attachment ?? undefined;
    }
    const ids = harness.hub.requests.map((r) => (r.op as { call: { operationId: string } }).call.operationId);
    expect(ids).toHaveLength(300);
    for (const id of ids) expect(id).toMatch(/^gen-[A-Za-z0-9_-]{16}$/);
    expect(new Set(ids).size).toBe(300);
  });

  test('SPEC §2 the first call mints a handle in meta.attachment; passing it back keeps the attachment and its namespace', async () => {
    const harness = await stateless();
    const first = await callEnvelope(harness, 'tradescript_get_context', { sessionId: 's-1', target: chart });
    const handle = first.payload.meta.attachment;
    expect(handle).toMatch(/^ta1\./);
    const again = await callEnvelope(harness, 'tradescript_call', trade({ attachment: handle }));
    expect(again.payload.meta.attachment).toBe(handle);
    const [a, b] = harness.hub.requests;
    expect(a?.attachmentId).toBe(b?.attachmentId);
    expect(harness.hub.attached).toHaveLength(1);
    expect(harness.front.attachments.size).toBe(1);
    // The id others see (tradescript://sessions) does not reveal the handle.
    expect(handle).not.toContain(a?.attachmentId ?? '-');
  });

  test('SPEC §2 two stateless clients with the same operationId run under different attachments and namespaces', async () => {
    const hub = new InMemoryHub();
    const { front } = statelessFront(hub);
    const one = await stateless(hub, { front, clientName: 'agent-one' });
    const two = await stateless(hub, { front, clientName: 'agent-two' });
    const a = await callEnvelope(one, 'tradescript_call', trade());
    const b = await callEnvelope(two, 'tradescript_call', trade());
    expect(a.payload.meta.attachment).not.toBe(b.payload.meta.attachment);
    const [ra, rb] = hub.requests;
    expect(ra?.attachmentId).not.toBe(rb?.attachmentId);
    const namespaces = new Set(hub.attached.map((x) => x.namespace));
    expect(namespaces.size).toBe(2);
    expect(hub.attached.map((x) => x.clientName).sort()).toEqual(['agent-one', 'agent-two']);
  });

  test('SPEC §2 a handle survives the server: another front with the same key derives the same attachment and namespace', () => {
    const key = { secret: Buffer.alloc(32, 7) };
    const minted = mintHandle(key, '');
    expect(verifyHandle(key, '', minted.handle)).toEqual(minted);
    expect(verifyHandle({ secret: Buffer.alloc(32, 8) }, '', minted.handle)).toBeNull();
    expect(verifyHandle(key, 'another-principal', minted.handle)).toBeNull();
    const tampered = minted.handle.replace(/\.(.)/, (_m, c: string) => `.${c === 'A' ? 'B' : 'A'}`);
    expect(verifyHandle(key, '', tampered)).toBeNull();
  });

  test('SPEC §2 a forged or foreign handle is invalid_input at ["attachment"] and reaches nothing', async () => {
    const harness = await stateless();
    const foreign = mintHandle({ secret: Buffer.alloc(32, 1) }, '').handle;
    for (const attachment of [foreign, 'ta1.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA', 'not a handle']) {
      const { payload } = await callEnvelope(harness, 'tradescript_call', trade({ attachment }));
      expect(payload.error).toMatchObject({ code: 'invalid_input', retry: 'after_correction' });
      expect(payload.error?.validation_errors.map((v) => v.path)).toEqual([['attachment']]);
      expect(JSON.stringify(payload)).not.toContain(attachment);
    }
    expect(harness.hub.requests).toHaveLength(0);
    expect(harness.hub.attached).toHaveLength(0);
  });

  test('SPEC §7 a stateless client polls and stops its own subscription by a self-routing id; another client gets subscription_not_found', async () => {
    const hub = new InMemoryHub();
    const { front } = statelessFront(hub);
    const owner = await stateless(hub, { front });
    const other = await stateless(hub, { front });
    const started = await callEnvelope(owner, 'tradescript_subscribe', {
      action: 'start',
      sessionId: 's-1',
      target: chart,
      bindings: [{ channelId: 'data.quotes', bindingId: 'q' }],
    });
    const handle = started.payload.meta.attachment;
    const subscriptionId = started.payload.data?.['subscriptionId'] as string;
    expect(subscriptionId).toMatch(/^sub-1\.s-1\./);
    const poll = await callEnvelope(owner, 'tradescript_subscribe', {
      action: 'poll',
      subscriptionId,
      attachment: handle,
    });
    expect(poll.payload.data?.['subscriptionId']).toBe(subscriptionId);
    expect(hub.requests.at(-1)?.op).toMatchObject({
      kind: 'subscribe',
      input: { action: 'poll', subscriptionId: 'sub-1' },
    });
    const before = hub.requests.length;
    const stolen = await callEnvelope(other, 'tradescript_subscribe', { action: 'poll', subscriptionId });
    expect(stolen.payload.error?.code).toBe('subscription_not_found');
    const stopped = await callEnvelope(other, 'tradescript_subscribe', { action: 'stop', subscriptionId });
    expect(stopped.payload.error?.code).toBe('subscription_not_found');
    expect(hub.requests).toHaveLength(before);
    const listed = await callEnvelope(owner, 'tradescript_subscribe', { action: 'list', attachment: handle });
    expect(listed.payload.data?.['subscriptions']).toEqual([expect.objectContaining({ subscriptionId })]);
  });

  test('SPEC §2 an attachment with no request for attachmentIdleMs ends as a detach (fake clock); a call in flight holds it; its handle resumes the same namespace', async () => {
    const hub = new InMemoryHub();
    const clock = manualClock();
    const idleMs = 60_000;
    const harness = await stateless(hub, {
      clock,
      config: { limits: { ...(await import('../../protocol/index.js')).DEFAULT_LIMITS, attachmentIdleMs: idleMs } },
    });
    const first = await callEnvelope(harness, 'tradescript_call', trade());
    const handle = first.payload.meta.attachment;
    const id = hub.requests[0]!.attachmentId;
    const namespace = hub.attached[0]!.namespace;

    clock.advance(idleMs - 1);
    clock.tick();
    expect(hub.detached).toEqual([]);

    // A call still running at the deadline keeps it.
    let answer: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const original = hub.responder;
    hub.responder = async (request) => {
      await held;
      return original(request);
    };
    const slow = callEnvelope(harness, 'tradescript_call', trade({ attachment: handle }));
    await waitFor(() => hub.requests.length === 2, 'the slow call');
    clock.advance(idleMs * 3);
    clock.tick();
    expect(hub.detached).toEqual([]);
    answer();
    await slow;
    hub.responder = original;

    clock.advance(idleMs);
    clock.tick();
    expect(hub.detached).toEqual([id]);
    expect(harness.front.attachments.size).toBe(0);

    const back = await callEnvelope(harness, 'tradescript_call', trade({ attachment: handle }));
    expect(back.payload.error).toBeNull();
    expect(hub.requests.at(-1)?.attachmentId).toBe(id);
    expect(hub.attached.at(-1)?.namespace).toBe(namespace);
  });

  test('SPEC §2 200 stateless clients come and go: the attachment count returns to zero once they idle out', async () => {
    const hub = new InMemoryHub();
    const clock = manualClock();
    const harness = await stateless(hub, { clock });
    const { front } = harness;
    // Without a handle every call is a new client as far as the server can tell (a restarted agent).
    for (let i = 0; i < 200; i += 1) {
      await callEnvelope(harness, 'tradescript_get_context', { sessionId: 's-1', target: chart });
    }
    expect(front.attachments.size).toBe(200);
    clock.advance(front.idleMs);
    clock.tick();
    expect(front.attachments.size).toBe(0);
    expect(new Set(hub.detached).size).toBe(200);
    expect(hub.live.size).toBe(0);
  });

  test('SPEC §2 the person ending a stateless attachment refuses its handle; omitting it starts a new attachment', async () => {
    const harness = await stateless();
    const first = await callEnvelope(harness, 'tradescript_call', trade());
    const handle = first.payload.meta.attachment;
    const id = harness.hub.requests[0]!.attachmentId;
    harness.hub.endedByPerson.add(id);
    await harness.hub.detach(id);
    harness.hub.emit('attachmentEnded', id);
    const refused = await callEnvelope(harness, 'tradescript_call', trade({ attachment: handle }));
    expect(refused.payload.error).toMatchObject({ code: 'control_unavailable', retry: 'after_user_action' });
    expect(refused.payload.error?.message).toContain('Omit `attachment`');
    const fresh = await callEnvelope(harness, 'tradescript_call', trade());
    expect(fresh.payload.error).toBeNull();
    expect(fresh.payload.meta.attachment).not.toBe(handle);
  });

  test('SPEC §3 §13 list results carry cache hints where true; resource reads need no handle', async () => {
    const harness = await stateless();
    const tools = await harness.client.listTools();
    expect(tools).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    const resources = await harness.client.listResources();
    expect(resources).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    const context = await harness.client.readResource({ uri: 'tradescript://sessions/s-1/context' });
    expect(JSON.parse((context.contents[0] as { text: string }).text)).toMatchObject({ sessionId: 's-1' });
    expect(harness.hub.attached.map((a) => a.clientName)).toEqual(['resource reads (stateless clients)']);
  });

  test('SPEC §3 §13 subscriptions/listen hears resources/list_changed and resources/updated from the same hub events', async () => {
    const harness = await stateless();
    const heard: string[] = [];
    harness.client.setNotificationHandler('notifications/resources/list_changed', () => void heard.push('list'));
    harness.client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
    const listening = await harness.client.listen({
      resourcesListChanged: true,
      resourceSubscriptions: [SESSIONS_URI],
    });
    harness.hub.emit('sessionsChanged');
    harness.hub.emit('sessionUpdated', 's-1');
    await waitFor(() => heard.length === 3, 'three notifications');
    expect(heard).toEqual(['list', SESSIONS_URI, SESSIONS_URI]);
    await listening.close();
  });

  test('SPEC §3 §5 a stateless batch reports progress, and cancelling a call aborts its hub request', async () => {
    const harness = await stateless();
    harness.hub.responder = (request) => {
      if (request.op.kind === 'batch') {
        const total = request.op.calls.length;
        for (let done = 1; done <= total; done += 1) request.options.onProgress?.(done, total);
        return defaultAnswer(request);
      }
      return new Promise((resolve) => {
        request.options.signal?.addEventListener('abort', () => resolve(defaultAnswer(request)));
      });
    };
    const seen: number[] = [];
    const entry = { target: chart, controlId: 'chart.getVisibleRange' };
    const batch = await harness.client.callTool(
      { name: 'tradescript_batch', arguments: { sessionId: 's-1', calls: [entry, entry] } },
      { onprogress: (p) => void seen.push(p.progress) },
    );
    expect(batch.isError).toBe(false);
    expect(seen).toEqual([1, 2]);

    const controller = new AbortController();
    const pending = harness.client.callTool(
      { name: 'tradescript_call', arguments: { sessionId: 's-1', ...entry } },
      { signal: controller.signal },
    );
    await waitFor(() => harness.hub.requests.length === 2, 'the hub request');
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(() => harness.hub.requests[1]?.options.signal?.aborted === true, 'the abort to reach the hub');
  });
});

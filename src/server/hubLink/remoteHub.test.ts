import { afterEach, describe, expect, it } from 'vitest';
import type { Operation } from '../../protocol/index.js';
import { waitUntil } from '../../testing/waitUntil.js';
import { openScriptedTab } from '../testing/scriptedTab.js';
import { createMemoryHubLink } from '../testing/memoryHubLink.js';
import { callOp, linkedHub, requestOptions, type LinkedHub } from '../testing/testLink.js';

let current: LinkedHub | null = null;
afterEach(() => {
  current?.close();
  current = null;
});
function start(): LinkedHub {
  current = linkedHub();
  return current;
}
const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('front link: attachments across processes (SPEC §2, §9)', () => {
  it('a remote front attaches with its own namespace; sessions list every attachment, local and remote', async () => {
    const { hub, front } = start();
    const tab = await openScriptedTab(hub);
    const local = await hub.attach({ clientName: 'local', transport: 'http' });
    const { remote } = await front();
    const far = await remote.attach({ clientName: 'far', transport: 'stdio' });
    expect(far.namespace).not.toBe(local.namespace);
    const viaLink = await remote.listSessions();
    expect(viaLink.map((s) => s.sessionId)).toEqual([tab.sessionId]);
    expect(viaLink[0]?.attachments.map((a) => [a.clientName, a.transport])).toEqual([
      ['local', 'http'],
      ['far', 'stdio'],
    ]);
    const frame = tab.client.received.filter((f) => f.t === 'attachments').at(-1);
    expect(frame).toMatchObject({ list: [{ clientName: 'local' }, { clientName: 'far' }] });
    expect((await remote.catalog(64 * 1024)).controls.map((c) => c.controlId)).toContain('chart.setVisibleRange');
  });

  it("SPEC §9 each front's own adapter maximum and limits travel with its requests; the hub adds nothing", async () => {
    const { hub, front } = start();
    const tab = await openScriptedTab(hub);
    const trading = await front();
    const readOnly = await front();
    const t = await trading.remote.attach({ clientName: 't', transport: 'stdio' });
    const r = await readOnly.remote.attach({ clientName: 'r', transport: 'stdio' });
    const limits = { ...requestOptions().limits, batchCalls: 5 };
    const first = trading.remote.request(
      t.attachmentId,
      tab.sessionId,
      callOp('chart.getVisibleRange'),
      requestOptions({ adapter: { maxAccess: 'trade', allowControls: ['orders.cancel'] } }),
    );
    const req1 = await tab.nextRequest();
    const second = readOnly.remote.request(
      r.attachmentId,
      tab.sessionId,
      callOp('chart.getVisibleRange'),
      requestOptions({ adapter: { maxAccess: 'read', allowControls: null }, limits }),
    );
    const req2 = await tab.nextRequest();
    expect(req1).toMatchObject({
      attachment: { attachmentId: t.attachmentId, namespace: t.namespace },
      adapter: { maxAccess: 'trade', allowControls: ['orders.cancel'] },
    });
    expect(req2).toMatchObject({
      attachment: { attachmentId: r.attachmentId, namespace: r.namespace },
      adapter: { maxAccess: 'read', allowControls: null },
      limits: { batchCalls: 5 },
    });
    tab.answer(req2.id, 'second');
    tab.answer(req1.id, 'first');
    expect(await first).toEqual({ ok: true, data: 'first', environment: 'paper' });
    expect(await second).toEqual({ ok: true, data: 'second', environment: 'paper' });
  });

  it("refuses a request naming another front's attachment", async () => {
    const { hub, front } = start();
    const tab = await openScriptedTab(hub);
    const a = await front();
    const b = await front();
    const theirs = await a.remote.attach({ clientName: 'a', transport: 'stdio' });
    const outcome = await b.remote.request(
      theirs.attachmentId,
      tab.sessionId,
      callOp('chart.getVisibleRange'),
      requestOptions(),
    );
    expect(outcome).toMatchObject({ ok: false, error: { code: 'internal_error' } });
    expect(tab.client.received.some((f) => f.t === 'request')).toBe(false);
  });

  it('a dropped link detaches that front’s attachments at the hub; the pages hear attachment.ended', async () => {
    const { hub, front } = start();
    const tab = await openScriptedTab(hub);
    const { remote, link } = await front();
    const a = await remote.attach({ clientName: 'gone', transport: 'stdio' });
    expect(hub.status().attachments).toBe(1);
    link.cut();
    await tick();
    expect(hub.status().attachments).toBe(0);
    expect(tab.client.received).toContainEqual({ t: 'attachment.ended', attachmentId: a.attachmentId });
  });

  it('resumes a kept attachment under its id and namespace, keeping the hosts the person detached it from (SPEC §2)', async () => {
    const { hub, front } = start();
    const tab = await openScriptedTab(hub);
    const first = await front();
    const kept = await first.remote.attach({ clientName: 'kept', transport: 'stdio' });
    const detached = await first.remote.attach({ clientName: 'detached', transport: 'stdio' });
    const heard: string[][] = [];
    first.remote.on('attachmentDetached', (id, hostId) => heard.push([id, hostId]));
    tab.client.send({ t: 'detach', sessionId: tab.sessionId, attachmentId: detached.attachmentId });
    await tick();
    expect(heard).toEqual([[detached.attachmentId, 'h_test']]);
    first.link.cut();
    await tick();
    const again = await front();
    const info = { clientName: 'kept', transport: 'stdio' } as const;
    await expect(again.remote.resume(kept, info)).resolves.toEqual(kept);
    await expect(again.remote.resume(kept, info)).resolves.toBeNull();
    await expect(again.remote.resume(detached, info, ['h_test'])).resolves.toEqual(detached);
    const refused = await again.remote.request(
      detached.attachmentId,
      tab.sessionId,
      callOp('chart.getVisibleRange'),
      requestOptions(),
    );
    expect(refused).toMatchObject({ ok: false, error: { code: 'control_unavailable' } });
    const pending = again.remote.request(
      kept.attachmentId,
      tab.sessionId,
      callOp('chart.getVisibleRange'),
      requestOptions(),
    );
    const req = await tab.nextRequest();
    expect(req.attachment.namespace).toBe(kept.namespace);
    tab.answer(req.id, null);
    await expect(pending).resolves.toMatchObject({ ok: true });
  });

  it('SPEC §9 a malformed or out-of-order link frame closes the link with 4400', async () => {
    const { links } = start();
    for (const text of [
      'not json',
      JSON.stringify({ t: 'sessions', ref: 'k1' }),
      JSON.stringify({ t: 'hello', v: 9 }),
    ]) {
      const link = createMemoryHubLink();
      const code = new Promise<number>((resolve) => (link.frontEnd.onclose = resolve));
      links.accept(link.hubEnd);
      link.frontEnd.send(text);
      expect(await code).toBe(4400);
    }
    expect(links.size).toBe(0);
  });

  it("a front's relay origins reach the hub, and the hub issues it pairing codes", async () => {
    const { front, origins } = start();
    const { remote } = await front(['http://127.0.0.1:7400']);
    await expect(remote.pair('trade')).resolves.toMatchObject({ code: 'CODE-trade' });
    expect(origins).toEqual(['http://127.0.0.1:7400']);
  });

  it('hub events reach the front: sessionsChanged and sessionUpdated', async () => {
    const { hub, front } = start();
    const { remote } = await front();
    const events: string[] = [];
    remote.on('sessionsChanged', () => events.push('changed'));
    remote.on('sessionUpdated', (id) => events.push(`updated:${id.slice(0, 2)}`));
    const tab = await openScriptedTab(hub);
    await remote.attach({ clientName: 'x', transport: 'stdio' });
    // The attach's update comes at the end of the 250 ms the pairing's event opened (coalescing, SPEC §3).
    await waitUntil(
      () => events.length >= 2,
      2_000,
      () => `two events, got ${events.join(',')}`,
    );
    expect(events).toEqual(['changed', `updated:${tab.sessionId.slice(0, 2)}`]);
  });
});

describe('front link: progress, cancellation and loss (SPEC §5, §9)', () => {
  it('progress crosses the link', async () => {
    const { hub, front } = start();
    const tab = await openScriptedTab(hub);
    const { remote } = await front();
    const a = await remote.attach({ clientName: 'p', transport: 'stdio' });
    const seen: Array<[number, number | undefined]> = [];
    const pending = remote.request(
      a.attachmentId,
      tab.sessionId,
      callOp('chart.getVisibleRange'),
      requestOptions({ onProgress: (p, t) => seen.push([p, t]) }),
    );
    const req = await tab.nextRequest();
    tab.client.send({ t: 'progress', id: req.id, progress: 1, total: 2 });
    await tick();
    tab.answer(req.id, null);
    await pending;
    expect(seen).toEqual([[1, 2]]);
  });

  it('cancellation crosses the link: the page hears cancel and a read resolves transport_error', async () => {
    const { hub, front } = start();
    const tab = await openScriptedTab(hub);
    const { remote } = await front();
    const a = await remote.attach({ clientName: 'c', transport: 'stdio' });
    const controller = new AbortController();
    const pending = remote.request(
      a.attachmentId,
      tab.sessionId,
      callOp('chart.getVisibleRange'),
      requestOptions({ signal: controller.signal }),
    );
    const req = await tab.nextRequest();
    controller.abort();
    expect(await tab.client.next('cancel')).toEqual({ t: 'cancel', id: req.id });
    await expect(pending).resolves.toMatchObject({ ok: false, error: { code: 'transport_error' } });
  });

  it('a mutation in flight when the link drops is uncertain_execution with its receipt, never re-sent', async () => {
    const { hub, front } = start();
    const tab = await openScriptedTab(hub);
    const { remote, link } = await front();
    const a = await remote.attach({ clientName: 'm', transport: 'stdio' });
    const write = remote.request(
      a.attachmentId,
      tab.sessionId,
      callOp('chart.setVisibleRange', 'op-7'),
      requestOptions(),
    );
    const read = remote.request(
      a.attachmentId,
      tab.sessionId,
      callOp('chart.getVisibleRange', 'op-8'),
      requestOptions(),
    );
    await tab.nextRequest();
    await tab.nextRequest();
    link.cut();
    await expect(write).resolves.toMatchObject({
      ok: false,
      error: {
        code: 'uncertain_execution',
        retry: 'after_reconcile',
        details: { receipt: { operationId: 'op-7', controlId: 'chart.setVisibleRange', mutation: true } },
      },
      environment: 'paper',
    });
    await expect(read).resolves.toMatchObject({
      ok: false,
      error: { code: 'transport_error', retry: 'after_backoff' },
    });
    await tick();
    expect(tab.client.received.filter((f) => f.t === 'request')).toHaveLength(2);
  });

  it('a batch in flight when the link drops is one rejected outcome per call, by the session catalog', async () => {
    const { hub, front } = start();
    const tab = await openScriptedTab(hub);
    const { remote, link } = await front();
    const a = await remote.attach({ clientName: 'b', transport: 'stdio' });
    const calls = [callOp('chart.getVisibleRange', 'r'), callOp('chart.setVisibleRange', 'w')].map((op) =>
      op.kind === 'call' ? op.call : null,
    );
    const batch: Operation = { kind: 'batch', calls: calls.filter((c) => c !== null), stopOnError: true };
    const pending = remote.request(a.attachmentId, tab.sessionId, batch, requestOptions());
    await tab.nextRequest();
    await tick();
    link.cut();
    const outcome = await pending;
    expect(outcome).toMatchObject({
      ok: true,
      data: {
        atomic: false,
        outcomes: [
          { index: 0, status: 'rejected', error: { code: 'transport_error' } },
          { index: 1, status: 'rejected', error: { code: 'uncertain_execution' } },
        ],
      },
    });
  });

  it('a request sent on a closed link was never sent: a call says so without claiming uncertainty', async () => {
    const { front } = start();
    const { remote, link } = await front();
    link.cut();
    await remote.closed;
    const outcome = await remote.request('a_x', 's_x', callOp('chart.setVisibleRange'), requestOptions());
    expect(outcome).toMatchObject({ ok: false, error: { code: 'session_not_found' } });
  });
});

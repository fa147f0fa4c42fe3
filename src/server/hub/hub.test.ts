import { describe, expect, it } from 'vitest';
import { CLOSE_CODES, DEFAULT_LIMITS, relayLimitsOf, type Operation, type RelayLimits } from '../../protocol/index.js';
import { createLogger } from '../log.js';
import { Hub, type HubTiming } from './hub.js';
import type { HubRequestOptions } from './hubPort.js';
import { openScriptedTab, testAuthenticator } from '../testing/scriptedTab.js';

const limits = relayLimitsOf(DEFAULT_LIMITS);
const relayLimits: RelayLimits = limits;

function makeHub(timing: Partial<HubTiming> = {}) {
  return new Hub({ auth: testAuthenticator(), logger: createLogger('silent'), serverVersion: '0.0.0-test', timing });
}

function opts(extra: Partial<HubRequestOptions> = {}): HubRequestOptions {
  return { adapter: { maxAccess: 'write', allowControls: null }, limits: relayLimits, deadlineMs: 30_000, ...extra };
}

const target = { scope: 'chart', chartId: 'main' } as const;
function call(controlId: string, operationId = 'op-1'): Operation {
  return { kind: 'call', call: { target, controlId, args: [], operationId, callerOperationId: true } };
}
const readCall = () => call('chart.getVisibleRange');
const mutationCall = () => call('chart.setVisibleRange', 'op-42');

async function attached(hub: Hub) {
  return hub.attach({ clientName: 'test-client', transport: 'stdio' });
}

describe('hub sessions (SPEC §2)', () => {
  it('gives a new tab an opaque id and keeps it across a reconnect of the same host', async () => {
    const hub = makeHub();
    const tab = await openScriptedTab(hub, { hostId: 'h_a' });
    expect(tab.sessionId).toMatch(/^s_/);
    tab.client.drop();
    await tab.client.whenClosed();
    expect((await hub.listSessions())[0]?.connected).toBe(false);
    const again = await openScriptedTab(hub, { hostId: 'h_a', sessionId: tab.sessionId });
    expect(again.sessionId).toBe(tab.sessionId);
    expect((await hub.listSessions()).map((s) => [s.sessionId, s.connected])).toEqual([[tab.sessionId, true]]);
  });

  it('refuses a kept id to another host: that host gets a fresh id, the owner keeps its session', async () => {
    const hub = makeHub();
    const owner = await openScriptedTab(hub, { hostId: 'h_owner' });
    owner.client.drop();
    await owner.client.whenClosed();
    const thief = await openScriptedTab(hub, { hostId: 'h_thief', sessionId: owner.sessionId });
    expect(thief.sessionId).not.toBe(owner.sessionId);
    expect(hub.hostOfSession(owner.sessionId)).toBe('h_owner');
    const back = await openScriptedTab(hub, { hostId: 'h_owner', sessionId: owner.sessionId });
    expect(back.sessionId).toBe(owner.sessionId);
  });

  it('gives a duplicated tab (same host, id live on another socket) a fresh id', async () => {
    const hub = makeHub();
    const first = await openScriptedTab(hub, { hostId: 'h_a' });
    const copy = await openScriptedTab(hub, { hostId: 'h_a', sessionId: first.sessionId });
    expect(copy.sessionId).not.toBe(first.sessionId);
  });

  it('refuses a page that names a site origin other than its own', async () => {
    const hub = makeHub();
    const tab = await openScriptedTab(hub);
    tab.client.send({
      t: 'session.open',
      ref: 'r2',
      origin: 'https://elsewhere.example',
      info: { title: 'x' },
      catalog: { controls: [], channels: [] },
    });
    expect((await tab.client.next('session.refused')).ref).toBe('r2');
  });

  it('lists sessions with their attachments and merges identical catalog declarations (SPEC §3)', async () => {
    const hub = makeHub();
    await openScriptedTab(hub, { hostId: 'h_a' });
    await openScriptedTab(hub, { hostId: 'h_b' });
    const a = await attached(hub);
    const sessions = await hub.listSessions();
    expect(sessions).toHaveLength(2);
    expect(sessions[0]?.attachments.map((x) => x.attachmentId)).toEqual([a.attachmentId]);
    expect(sessions[0]?.contextUri).toMatch(/^tradescript:\/\/sessions\/s_.*\/context$/);
    expect((await hub.catalog(DEFAULT_LIMITS.resultBytes)).controls.map((c) => c.controlId)).toEqual([
      'chart.getVisibleRange',
      'chart.setVisibleRange',
    ]);
  });

  it('announces sessionsChanged on open and close', async () => {
    const hub = makeHub({ sessionEventIntervalMs: 0 });
    let changes = 0;
    hub.on('sessionsChanged', () => changes++);
    const tab = await openScriptedTab(hub);
    tab.client.send({ t: 'session.close', sessionId: tab.sessionId });
    const a = await attached(hub);
    await expect(hub.request(a.attachmentId, tab.sessionId, readCall(), opts())).resolves.toMatchObject({
      error: { code: 'session_closed' },
    });
    expect(changes).toBe(2);
  });
});

describe('hub routing (SPEC §9)', () => {
  it('sends a request only to the owning socket and resolves with its answer', async () => {
    const hub = makeHub();
    const mine = await openScriptedTab(hub, { hostId: 'h_a' });
    const other = await openScriptedTab(hub, { hostId: 'h_b' });
    const a = await attached(hub);
    const pending = hub.request(a.attachmentId, mine.sessionId, readCall(), opts());
    const req = await mine.nextRequest();
    expect(req).toMatchObject({
      sessionId: mine.sessionId,
      attachment: { attachmentId: a.attachmentId, namespace: a.namespace },
    });
    // The time left of the 30 s deadline when the frame left (a millisecond may have passed).
    expect(req.deadlineMs).toBeGreaterThan(29_000);
    expect(req.deadlineMs).toBeLessThanOrEqual(30_000);
    expect(other.client.received.some((f) => f.t === 'request')).toBe(false);
    mine.answer(req.id, { from: 'mine' });
    await expect(pending).resolves.toEqual({ ok: true, data: { from: 'mine' }, environment: 'paper' });
  });

  it('closes a socket answering a request it does not own with 4400; the owner still answers', async () => {
    const hub = makeHub();
    const mine = await openScriptedTab(hub, { hostId: 'h_a' });
    const other = await openScriptedTab(hub, { hostId: 'h_b' });
    const a = await attached(hub);
    const pending = hub.request(a.attachmentId, mine.sessionId, readCall(), opts());
    const req = await mine.nextRequest();
    other.answer(req.id, { forged: true });
    expect((await other.client.whenClosed()).code).toBe(CLOSE_CODES.malformed);
    mine.answer(req.id, { real: true });
    await expect(pending).resolves.toMatchObject({ ok: true, data: { real: true } });
  });

  it('closes a socket answering an unknown request id with 4400', async () => {
    const hub = makeHub();
    const tab = await openScriptedTab(hub);
    tab.answer('r-never-sent', {});
    expect((await tab.client.whenClosed()).code).toBe(CLOSE_CODES.malformed);
  });

  it('closes with 4400 a socket that updates, closes or detaches a session it does not own', async () => {
    const hub = makeHub();
    const owner = await openScriptedTab(hub, { hostId: 'h_a' });
    for (const frame of [
      { t: 'session.update', sessionId: owner.sessionId, info: { title: 'stolen' } },
      { t: 'session.close', sessionId: owner.sessionId },
      { t: 'detach', sessionId: owner.sessionId },
      { t: 'progress', id: 'r-not-mine', progress: 1 },
    ]) {
      const other = await openScriptedTab(hub, { hostId: 'h_b' });
      other.client.send(frame);
      expect((await other.client.whenClosed()).code).toBe(CLOSE_CODES.malformed);
    }
    expect((await hub.listSessions()).find((s) => s.sessionId === owner.sessionId)?.title).toBe('Test terminal');
  });

  it('answers session_not_found for an unknown id', async () => {
    const hub = makeHub();
    const a = await attached(hub);
    await expect(hub.request(a.attachmentId, 's_nope', readCall(), opts())).resolves.toMatchObject({
      ok: false,
      error: { code: 'session_not_found', retry: 'after_reread' },
    });
  });

  it('waits for a disconnected tab to come back, then dispatches', async () => {
    const hub = makeHub({ reconnectWaitMs: 10_000 });
    const tab = await openScriptedTab(hub, { hostId: 'h_a' });
    const a = await attached(hub);
    tab.client.drop();
    await tab.client.whenClosed();
    const pending = hub.request(a.attachmentId, tab.sessionId, readCall(), opts());
    const back = await openScriptedTab(hub, { hostId: 'h_a', sessionId: tab.sessionId });
    const req = await back.nextRequest();
    back.answer(req.id, 'ok');
    await expect(pending).resolves.toMatchObject({ ok: true, data: 'ok' });
  });

  it('SPEC §9 a tab still reconnecting after the wait gets nothing sent: a read is transport_error after_backoff', async () => {
    const hub = makeHub({ reconnectWaitMs: 20 });
    const tab = await openScriptedTab(hub);
    const a = await attached(hub);
    tab.client.drop();
    await tab.client.whenClosed();
    await expect(hub.request(a.attachmentId, tab.sessionId, readCall(), opts())).resolves.toMatchObject({
      error: { code: 'transport_error', retry: 'after_backoff' },
    });
  });

  it('SPEC §4 §5 a possible mutation never sent to a tab away in its grace period is session_closed (a code a mutation may have), also on reuse of its id', async () => {
    const hub = makeHub({ reconnectWaitMs: 20 });
    const tab = await openScriptedTab(hub);
    const a = await attached(hub);
    tab.client.drop();
    await tab.client.whenClosed();
    for (let i = 0; i < 2; i += 1) {
      const outcome = await hub.request(a.attachmentId, tab.sessionId, mutationCall(), opts());
      expect(outcome).toMatchObject({ error: { code: 'session_closed', retry: 'after_user_action', details: null } });
      expect(!outcome.ok && outcome.error.message).toMatch(/nothing was sent/);
    }
    expect(tab.client.received.filter((f) => f.t === 'request')).toHaveLength(0);
  });

  it('passes progress from the owning socket to onProgress', async () => {
    const hub = makeHub();
    const tab = await openScriptedTab(hub);
    const a = await attached(hub);
    const seen: Array<[number, number | undefined]> = [];
    const pending = hub.request(
      a.attachmentId,
      tab.sessionId,
      readCall(),
      opts({ onProgress: (p, t) => seen.push([p, t]) }),
    );
    const req = await tab.nextRequest();
    tab.client.send({ t: 'progress', id: req.id, progress: 1, total: 2 });
    tab.answer(req.id, null);
    await pending;
    expect(seen).toEqual([[1, 2]]);
  });
});

describe('hub lost answers (SPEC §5, §9)', () => {
  it('reports a mutation in flight on a dropped socket as uncertain_execution with a receipt, never re-sent', async () => {
    const hub = makeHub();
    const tab = await openScriptedTab(hub, { hostId: 'h_a' });
    const a = await attached(hub);
    const pending = hub.request(a.attachmentId, tab.sessionId, mutationCall(), opts());
    await tab.nextRequest();
    tab.client.drop();
    const outcome = await pending;
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: 'uncertain_execution',
        retry: 'after_reconcile',
        details: {
          receipt: {
            operationId: 'op-42',
            origin: 'mcp',
            controlId: 'chart.setVisibleRange',
            target,
            mutation: true,
            revisionsBefore: {},
            revisionsAfter: {},
          },
        },
      },
    });
    const back = await openScriptedTab(hub, { hostId: 'h_a', sessionId: tab.sessionId });
    await new Promise((r) => setTimeout(r, 10));
    expect(back.client.received.filter((f) => f.t === 'request')).toEqual([]);
  });

  it('reports a read in flight on a dropped socket as transport_error (after_backoff)', async () => {
    const hub = makeHub();
    const tab = await openScriptedTab(hub);
    const a = await attached(hub);
    const pending = hub.request(a.attachmentId, tab.sessionId, readCall(), opts());
    await tab.nextRequest();
    tab.client.drop();
    await expect(pending).resolves.toMatchObject({
      ok: false,
      error: { code: 'transport_error', retry: 'after_backoff', details: null },
    });
  });

  it('reports a batch in flight on a dropped socket as one rejected outcome per call', async () => {
    const hub = makeHub();
    const tab = await openScriptedTab(hub);
    const a = await attached(hub);
    const batch: Operation = {
      kind: 'batch',
      stopOnError: true,
      calls: [
        { target, controlId: 'chart.getVisibleRange', args: [], operationId: 'g1', callerOperationId: false },
        { target, controlId: 'chart.setVisibleRange', args: [], operationId: 'm1', callerOperationId: true },
      ],
    };
    const pending = hub.request(a.attachmentId, tab.sessionId, batch, opts());
    await tab.nextRequest();
    tab.client.drop();
    const outcome = await pending;
    expect(outcome).toMatchObject({
      ok: true,
      data: {
        atomic: false,
        outcomes: [
          { index: 0, status: 'rejected', error: { code: 'transport_error' } },
          {
            index: 1,
            status: 'rejected',
            error: { code: 'uncertain_execution', details: { receipt: { operationId: 'm1' } } },
          },
        ],
      },
    });
  });

  it('treats a control missing from the catalog as a mutation when lost', async () => {
    const hub = makeHub();
    const tab = await openScriptedTab(hub);
    const a = await attached(hub);
    const pending = hub.request(a.attachmentId, tab.sessionId, call('orders.unknown'), opts());
    await tab.nextRequest();
    tab.client.drop();
    await expect(pending).resolves.toMatchObject({ error: { code: 'uncertain_execution' } });
  });

  it('on the deadline: a read is transport_error, a mutation uncertain_execution, and the page gets cancel', async () => {
    const hub = makeHub({ deadlineGraceMs: 0 });
    const tab = await openScriptedTab(hub);
    const a = await attached(hub);
    const read = hub.request(a.attachmentId, tab.sessionId, readCall(), opts({ deadlineMs: 20 }));
    const write = hub.request(a.attachmentId, tab.sessionId, mutationCall(), opts({ deadlineMs: 20 }));
    await expect(read).resolves.toMatchObject({ error: { code: 'transport_error' } });
    await expect(write).resolves.toMatchObject({
      error: { code: 'uncertain_execution', details: { receipt: { operationId: 'op-42' } } },
    });
    const cancelled = tab.client.received.filter((f) => f.t === 'cancel');
    expect(cancelled).toHaveLength(2);
  });

  it('drops a late answer after the deadline without closing the socket', async () => {
    const hub = makeHub({ deadlineGraceMs: 0 });
    const tab = await openScriptedTab(hub);
    const a = await attached(hub);
    const pending = hub.request(a.attachmentId, tab.sessionId, readCall(), opts({ deadlineMs: 10 }));
    const req = await tab.nextRequest();
    await pending;
    tab.answer(req.id, 'late');
    const again = hub.request(a.attachmentId, tab.sessionId, readCall(), opts());
    const req2 = await tab.nextRequest();
    tab.answer(req2.id, 'fine');
    await expect(again).resolves.toMatchObject({ ok: true, data: 'fine' });
    expect(tab.client.closed).toBeNull();
  });

  it('on cancel: a read resolves at once, a dispatched mutation waits for its outcome', async () => {
    const hub = makeHub();
    const tab = await openScriptedTab(hub);
    const a = await attached(hub);
    const readAbort = new AbortController();
    const read = hub.request(a.attachmentId, tab.sessionId, readCall(), opts({ signal: readAbort.signal }));
    const readReq = await tab.nextRequest();
    readAbort.abort();
    await expect(read).resolves.toMatchObject({ ok: false, error: { code: 'transport_error' } });
    expect(await tab.client.next('cancel')).toEqual({ t: 'cancel', id: readReq.id });

    const writeAbort = new AbortController();
    const write = hub.request(a.attachmentId, tab.sessionId, mutationCall(), opts({ signal: writeAbort.signal }));
    const writeReq = await tab.nextRequest();
    writeAbort.abort();
    expect(await tab.client.next('cancel')).toEqual({ t: 'cancel', id: writeReq.id });
    tab.answer(writeReq.id, { done: true });
    await expect(write).resolves.toMatchObject({ ok: true, data: { done: true } });
  });
});

describe('hub attachments (SPEC §2)', () => {
  it('broadcasts attachments on attach and attachment.ended on detach', async () => {
    const hub = makeHub();
    const tab = await openScriptedTab(hub);
    const a = await attached(hub);
    const list = tab.client.received.filter((f) => f.t === 'attachments');
    expect(list.at(-1)).toMatchObject({
      sessionId: tab.sessionId,
      list: [{ attachmentId: a.attachmentId, clientName: 'test-client', transport: 'stdio' }],
    });
    await hub.detach(a.attachmentId);
    expect(await tab.client.next('attachment.ended')).toEqual({ t: 'attachment.ended', attachmentId: a.attachmentId });
    expect(tab.client.received.filter((f) => f.t === 'attachments').at(-1)).toMatchObject({ list: [] });
  });

  it('gives each attachment its own namespace', async () => {
    const hub = makeHub();
    const [a, b] = [await attached(hub), await attached(hub)];
    expect(a.namespace).not.toBe(b.namespace);
    expect(a.attachmentId).not.toBe(b.attachmentId);
  });

  it('SPEC §2 "detach all" in a page ends attachments’ use of that host only; other hosts’ pages and clients are untouched', async () => {
    const hub = makeHub();
    const tab = await openScriptedTab(hub, { hostId: 'h_detaching' });
    const sibling = await openScriptedTab(hub, { hostId: 'h_detaching' });
    const other = await openScriptedTab(hub, { hostId: 'h_other' });
    const a = await attached(hub);
    const ended: string[] = [];
    hub.on('attachmentEnded', (id) => ended.push(id));
    tab.client.send({ t: 'detach', sessionId: tab.sessionId });
    expect(await tab.client.next('attachment.ended')).toEqual({ t: 'attachment.ended', attachmentId: a.attachmentId });
    expect(await sibling.client.next('attachment.ended')).toEqual({
      t: 'attachment.ended',
      attachmentId: a.attachmentId,
    });
    expect(other.client.received.some((f) => f.t === 'attachment.ended')).toBe(false);
    expect(ended).toEqual([]);
    const listed = await hub.listSessions();
    expect(listed.find((s) => s.sessionId === tab.sessionId)?.attachments).toEqual([]);
    expect(listed.find((s) => s.sessionId === other.sessionId)?.attachments).toHaveLength(1);
    for (const session of [tab, sibling]) {
      await expect(hub.request(a.attachmentId, session.sessionId, readCall(), opts())).resolves.toMatchObject({
        error: { code: 'control_unavailable' },
      });
    }
    const pending = hub.request(a.attachmentId, other.sessionId, readCall(), opts());
    const req = await other.nextRequest();
    other.answer(req.id, { still: 'works' });
    await expect(pending).resolves.toMatchObject({ ok: true, data: { still: 'works' } });
    expect(tab.client.received.filter((f) => f.t === 'request')).toHaveLength(0);
  });

  it('SPEC §2 §13 an attachment the person detached from a host stays detached from it when it ends and comes back under its kept id (a stateless handle after an idle detach)', async () => {
    const hub = makeHub();
    const tab = await openScriptedTab(hub, { hostId: 'h_detaching' });
    const other = await openScriptedTab(hub, { hostId: 'h_other' });
    const a = await attached(hub);
    tab.client.send({ t: 'detach', sessionId: tab.sessionId });
    await tab.client.next('attachment.ended');
    await hub.detach(a.attachmentId);
    expect(hub.resume(a, { clientName: 'test-client', transport: 'http' })).toEqual(a);
    await expect(hub.request(a.attachmentId, tab.sessionId, readCall(), opts())).resolves.toMatchObject({
      error: { code: 'control_unavailable' },
    });
    const listed = await hub.listSessions();
    expect(listed.find((s) => s.sessionId === tab.sessionId)?.attachments).toEqual([]);
    const pending = hub.request(a.attachmentId, other.sessionId, readCall(), opts());
    const req = await other.nextRequest();
    other.answer(req.id, { still: 'works' });
    await expect(pending).resolves.toMatchObject({ ok: true });
    expect(tab.client.received.filter((f) => f.t === 'request')).toHaveLength(0);
  });
});

describe('SPEC §9 only a socket owning a session may detach', () => {
  it.each([
    ['without a session', {}],
    ['naming one attachment without a session', { attachmentIdOf: true }],
  ])('a paired socket %s is closed 4400 and ends no attachment', async (_label, shape) => {
    const hub = makeHub();
    await openScriptedTab(hub, { hostId: 'h_owner' });
    const intruder = await openScriptedTab(hub, { hostId: 'h_intruder' });
    const a = await attached(hub);
    const ended: string[] = [];
    hub.on('attachmentEnded', (id) => ended.push(id));
    intruder.client.send('attachmentIdOf' in shape ? { t: 'detach', attachmentId: a.attachmentId } : { t: 'detach' });
    expect((await intruder.client.whenClosed()).code).toBe(4400);
    expect(ended).toEqual([]);
  });
});

describe('hub revocation (SPEC §9, §11)', () => {
  it('closes a revoked host’s sockets with 4403 and its sessions answer session_closed', async () => {
    const hub = makeHub();
    const tab = await openScriptedTab(hub, { hostId: 'h_gone' });
    const a = await attached(hub);
    expect(hub.revokeHost('h_gone')).toBe(1);
    expect((await tab.client.whenClosed()).code).toBe(CLOSE_CODES.forbidden);
    await expect(hub.request(a.attachmentId, tab.sessionId, readCall(), opts())).resolves.toMatchObject({
      error: { code: 'session_closed' },
    });
    expect(await hub.listSessions()).toEqual([]);
  });
});

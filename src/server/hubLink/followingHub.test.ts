import { afterEach, describe, expect, it } from 'vitest';
import { openScriptedTab } from '../testing/scriptedTab.js';
import { createLogger } from '../log.js';
import type { JoinedHub } from './discovery.js';
import { FollowingHub, type ResumableHub } from './followingHub.js';
import { HubFollower } from './hubFollower.js';
import { callOp, linkedHub, requestOptions, type LinkedHub } from '../testing/testLink.js';

const logger = createLogger('silent');
const started: LinkedHub[] = [];
afterEach(() => {
  for (const h of started.splice(0)) h.close();
});
function hubProcess(): LinkedHub {
  const h = linkedHub();
  started.push(h);
  return h;
}
const info = { clientName: 'claude', transport: 'stdio' } as const;

async function joined(h: LinkedHub): Promise<JoinedHub> {
  const { remote } = await h.front();
  const welcome = await remote.welcome;
  const file = {
    version: 1 as const,
    pid: welcome.pid,
    serverVersion: welcome.serverVersion,
    startedAt: '',
    adminUrl: '',
    adminToken: 'x'.repeat(16),
    relayUrl: welcome.relayUrl,
    frontUrl: 'ws://127.0.0.1:7391/front',
    frontToken: 'y'.repeat(16),
  };
  return { remote, welcome, file };
}

describe('FollowingHub: one MCP connection across hub processes (SPEC §2, §9)', () => {
  it("keeps an attachment's id and namespace when the hub moves to another process", async () => {
    const a = hubProcess();
    const tabOnA = await openScriptedTab(a.hub, { hostId: 'h_1' });
    const following = new FollowingHub({ logger });
    const first = await joined(a);
    await following.use(first.remote);
    const handle = await following.attach(info);
    following.lose();
    first.remote.close();

    const b = hubProcess();
    const tabOnB = await openScriptedTab(b.hub, { hostId: 'h_1', sessionId: tabOnA.sessionId });
    expect(tabOnB.sessionId).toBe(tabOnA.sessionId);
    await following.use(b.hub);
    const sessions = await following.listSessions();
    expect(sessions[0]?.attachments.map((x) => x.attachmentId)).toEqual([handle.attachmentId]);
    const pending = following.request(
      handle.attachmentId,
      tabOnB.sessionId,
      callOp('chart.getVisibleRange'),
      requestOptions(),
    );
    const req = await tabOnB.nextRequest();
    expect(req.attachment).toEqual({
      attachmentId: handle.attachmentId,
      namespace: handle.namespace,
      clientName: 'claude',
    });
    tabOnB.answer(req.id, 'ok');
    await expect(pending).resolves.toMatchObject({ ok: true, data: 'ok' });
  });

  it('a call made while no hub is reachable waits for the next hub, then goes there once', async () => {
    const a = hubProcess();
    const following = new FollowingHub({ logger });
    await following.use(a.hub);
    const handle = await following.attach(info);
    following.lose();
    const b = hubProcess();
    const tab = await openScriptedTab(b.hub);
    const pending = following.request(
      handle.attachmentId,
      tab.sessionId,
      callOp('chart.setVisibleRange'),
      requestOptions(),
    );
    await following.use(b.hub);
    const req = await tab.nextRequest();
    tab.answer(req.id, 'done');
    await expect(pending).resolves.toMatchObject({ ok: true, data: 'done' });
    expect(tab.client.received.filter((f) => f.t === 'request')).toHaveLength(1);
  });

  it('when no hub comes within the wait, nothing is sent: a call is session_not_found, a read transport_error', async () => {
    const following = new FollowingHub({ logger, waitMs: 20 });
    const call = await following.request('a_1', 's_1', callOp('chart.setVisibleRange'), requestOptions());
    expect(call).toMatchObject({ ok: false, error: { code: 'session_not_found' } });
    const context = await following.request(
      'a_1',
      's_1',
      { kind: 'context', target: { scope: 'session' } },
      requestOptions(),
    );
    expect(context).toMatchObject({ ok: false, error: { code: 'transport_error' } });
    expect(await following.listSessions()).toEqual([]);
  });

  it('SPEC §2 a person’s "detach" at one host survives the hub moving to another process', async () => {
    const a = hubProcess();
    const tabOnA = await openScriptedTab(a.hub, { hostId: 'h_1' });
    const following = new FollowingHub({ logger });
    const first = await joined(a);
    await following.use(first.remote);
    const handle = await following.attach(info);
    tabOnA.client.send({ t: 'detach', sessionId: tabOnA.sessionId });
    await tabOnA.client.next('attachment.ended');
    await new Promise((resolve) => setTimeout(resolve, 10));
    following.lose();
    first.remote.close();
    const b = hubProcess();
    const again = await openScriptedTab(b.hub, { hostId: 'h_1', sessionId: tabOnA.sessionId });
    const other = await openScriptedTab(b.hub, { hostId: 'h_2' });
    await following.use(b.hub);
    const options = requestOptions();
    const refused = await following.request(
      handle.attachmentId,
      again.sessionId,
      callOp('chart.getVisibleRange'),
      options,
    );
    expect(refused).toMatchObject({ ok: false, error: { code: 'control_unavailable' } });
    const pending = following.request(handle.attachmentId, other.sessionId, callOp('chart.getVisibleRange'), options);
    other.answer((await other.nextRequest()).id, 'ok');
    await expect(pending).resolves.toMatchObject({ ok: true, data: 'ok' });
  });

  it('an attachment the next hub refuses to resume ends: its MCP connection hears attachmentEnded', async () => {
    const a = hubProcess();
    const following = new FollowingHub({ logger });
    await following.use(a.hub);
    const handle = await following.attach(info);
    const ended: string[] = [];
    following.on('attachmentEnded', (id) => ended.push(id));
    following.lose();
    const b = hubProcess();
    // As a hub does for an id already live there (attachmentRegistry.resumable).
    const refusing: ResumableHub = Object.assign(Object.create(b.hub) as ResumableHub, { resume: () => null });
    await following.use(refusing);
    expect(ended).toEqual([handle.attachmentId]);
    expect(b.hub.status().attachments).toBe(0);
  });
});

describe('HubFollower: finding or becoming the next hub (SPEC §9)', () => {
  it('when the link drops it takes over if no other hub answers', async () => {
    const a = hubProcess();
    const b = hubProcess();
    const following = new FollowingHub({ logger });
    const tookOver: string[] = [];
    const follower = new HubFollower({
      hub: following,
      logger,
      random: () => 0,
      join: async () => null,
      takeOver: async () => {
        tookOver.push('b');
        return b.hub;
      },
    });
    const first = await joined(a);
    await follower.follow(first);
    const handle = await following.attach(info);
    const tab = await openScriptedTab(b.hub);
    a.close();
    await first.remote.closed;
    await follower.settled();
    expect(tookOver).toEqual(['b']);
    expect(following.current).toBe(b.hub);
    const pending = following.request(
      handle.attachmentId,
      tab.sessionId,
      callOp('chart.getVisibleRange'),
      requestOptions(),
    );
    const req = await tab.nextRequest();
    expect(req.attachment.namespace).toBe(handle.namespace);
    tab.answer(req.id, null);
    await pending;
    follower.stop();
  });

  it('loses the race for the port and follows the winner it then finds in hub.json', async () => {
    const a = hubProcess();
    const winner = hubProcess();
    const following = new FollowingHub({ logger });
    let joins = 0;
    let takeOvers = 0;
    const follower = new HubFollower({
      hub: following,
      logger,
      random: () => 0,
      join: async () => (++joins === 1 ? null : joined(winner)),
      takeOver: async () => {
        takeOvers++;
        throw Object.assign(new Error('in use'), { code: 'EADDRINUSE' });
      },
    });
    await follower.follow(await joined(a));
    const handle = await following.attach(info);
    a.close();
    await new Promise((r) => setTimeout(r, 20));
    await follower.settled();
    expect([joins, takeOvers]).toEqual([2, 1]);
    expect(winner.hub.status().attachments).toBe(1);
    expect((await following.listSessions()).length).toBe(0);
    expect(following.current).not.toBeNull();
    expect(handle.attachmentId).toMatch(/^a_/);
    follower.stop();
  });
});

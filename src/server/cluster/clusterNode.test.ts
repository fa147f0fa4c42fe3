/**
 * Cluster mode with a real `redis-server` and three nodes in this process
 * (SPEC §14): routing across nodes, tenants, hand-over of a tab between
 * nodes, and Redis going away and coming back. Tabs are the real bridge
 * connection over real WebSockets carrying their bearer token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { ClusterHub } from './clusterHub.js';
import type { ClusterNode } from './clusterNode.js';

type ClusterHubPort = Pick<ClusterHub, 'resume'>;
import type { Client } from '@modelcontextprotocol/client';
import {
  attachAs,
  callOp,
  openTab,
  requestAs,
  startTestCluster,
  TAB_ORIGIN,
  TOKENS,
  portOf,
  type TestCluster,
  type TestTab,
} from '../../testing/clusterNodes.js';
import { callToolPayload, connectModernClient } from '../../testing/modernClient.js';
import { nodeRotation } from '../../testing/nodeRotation.js';
import { waitUntil } from '../../testing/waitUntil.js';
import type { PairLinkResult } from '../../bridge/page/bridgeTypes.js';
import { runAsPrincipal } from './principalContext.js';

let cluster: TestCluster;

async function waitUntilAsync(check: () => Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
let a: ClusterNode;
let b: ClusterNode;
let c: ClusterNode;
const tabs: TestTab[] = [];

beforeAll(async () => {
  cluster = await startTestCluster(3);
  [a, b, c] = cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
}, 60_000);

afterAll(async () => {
  for (const tab of tabs) tab.close();
  await cluster?.close();
});

async function pairedTab(
  node: ClusterNode,
  principal: 'alice' | 'bob',
  answers: 'echo' | 'mcp' = 'echo',
): Promise<{ tab: TestTab; sessionId: string }> {
  const code = await cluster.pairCode(node, principal);
  const tab = openTab(node.urls.relayUrl, TOKENS[principal], { pairCode: code, answers });
  tabs.push(tab);
  return { tab, sessionId: await tab.opened() };
}

function upgradeStatus(relayUrl: string, protocols: string[]): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(relayUrl, protocols, { origin: TAB_ORIGIN });
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('error', () => undefined);
  });
}

describe('SPEC §14 routing across nodes', () => {
  it('a tab paired through node A is driven through node C: the call is forwarded, answered on C, and reaches the tab with its attachment id and namespace unchanged', async () => {
    const { tab, sessionId } = await pairedTab(a, 'alice');
    const attachment = await attachAs(c, 'alice');
    const outcome = await requestAs(c, 'alice', attachment.attachmentId, sessionId, callOp('test.read', 'r-1', [42]));
    expect(outcome.ok).toBe(true);
    expect(outcome.ok && (outcome.data as { echo: unknown }).echo).toEqual(callOp('test.read', 'r-1', [42]));
    const seen = tab.requests.at(-1);
    expect(seen?.attachment).toMatchObject({ attachmentId: attachment.attachmentId, namespace: attachment.namespace });
    expect(c.health().forwardsInFlight).toBe(0);
  });

  it('sessions and their attachments are listed on every node; the tab hears of an attachment made on another node', async () => {
    const { tab, sessionId } = await pairedTab(b, 'alice');
    const attachment = await attachAs(a, 'alice');
    for (const node of [a, b, c]) {
      const listed = await runAsPrincipal('alice', () => node.hub.listSessions());
      const mine = listed.find((s) => s.sessionId === sessionId);
      expect(mine?.connected).toBe(true);
      expect(mine?.attachments.map((x) => x.attachmentId)).toContain(attachment.attachmentId);
    }
    await waitUntil(
      () => tab.status().attachments.some((x) => x.attachmentId === attachment.attachmentId),
      5_000,
      () => 'the tab on B to list the attachment made on A',
    );
  });
});

describe('SPEC §14 tenants', () => {
  it("another principal's session is session_not_found on every node, is never listed, and no request reaches its tab", async () => {
    const alice = await pairedTab(a, 'alice');
    const bobAttachment = await attachAs(c, 'bob');
    const before = alice.tab.requests.length;
    for (const node of [a, b, c]) {
      const bobOnNode = await attachAs(node, 'bob');
      for (const op of [
        callOp('test.read', 'x'),
        callOp('test.write', 'y'),
        { kind: 'context' as const, target: { scope: 'session' as const } },
      ]) {
        const outcome = await requestAs(node, 'bob', bobOnNode.attachmentId, alice.sessionId, op);
        expect(!outcome.ok && outcome.error.code).toBe('session_not_found');
      }
      const listed = await runAsPrincipal('bob', () => node.hub.listSessions());
      expect(listed.map((s) => s.sessionId)).not.toContain(alice.sessionId);
      for (const s of listed) expect(s.attachments.every((x) => x.clientName.startsWith('bob'))).toBe(true);
    }
    // Bob using Alice's attachment id (a leaked MCP session) gets nothing either.
    const aliceAttachment = await attachAs(c, 'alice');
    const stolen = await requestAs(c, 'bob', aliceAttachment.attachmentId, alice.sessionId, callOp('test.read', 'z'));
    expect(!stolen.ok && stolen.error.code).toBe('session_not_found');
    expect(alice.tab.requests.length).toBe(before);
    expect(bobAttachment.namespace).not.toBe(aliceAttachment.namespace);
  });

  it("a pairing code works only for the principal that asked for it: another principal's tab presenting it stays unpaired", async () => {
    const code = await cluster.pairCode(a, 'alice');
    const thief = openTab(b.urls.relayUrl, TOKENS.bob, { pairCode: code });
    tabs.push(thief);
    await waitUntil(
      () => thief.connection.status().state === 'unpaired',
      5_000,
      () => 'the thief to be refused',
    );
    expect(await thief.credentials.load()).toBeNull();
    // The code was not used up by the refusal: Alice still pairs with it.
    const owner = openTab(c.urls.relayUrl, TOKENS.alice, { pairCode: code });
    tabs.push(owner);
    await owner.opened();
  });

  it("SPEC §9 §14 a pairing link opened in a tab already paired spends only a code its own principal asked for: a code of its principal proposes its grant, another principal's is refused", async () => {
    const { tab } = await pairedTab(a, 'alice');
    const offered = async (code: string) => {
      let result: PairLinkResult | null = null;
      const again = openTab(c.urls.relayUrl, TOKENS.alice, {
        credentials: tab.credentials,
        pairCode: code,
        onPairLink: (r) => void (result = r),
      });
      tabs.push(again);
      await waitUntil(
        () => result !== null,
        5_000,
        () => 'the proposal',
      );
      again.close();
      return result as PairLinkResult | null;
    };
    expect(await offered(await cluster.pairCode(b, 'alice'))).toEqual({ grant: 'write', message: null });
    const bobs = await cluster.pairCode(b, 'bob');
    expect((await offered(bobs))?.grant).toBeNull();
    // The refusal did not spend Bob's code: his own tab still pairs with it.
    const owner = openTab(b.urls.relayUrl, TOKENS.bob, { pairCode: bobs });
    tabs.push(owner);
    await owner.opened();
  });

  it('without a valid bearer: /mcp and /pair answer 401, the relay upgrade 401; the probes answer without one', async () => {
    const base = a.urls.mcpUrl?.replace(/\/mcp$/, '') ?? '';
    const post = (path: string, token?: string) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: '{}',
      });
    expect((await post('/mcp')).status).toBe(401);
    expect((await post('/mcp', 'not-a-known-token-at-all')).status).toBe(401);
    expect((await post('/pair')).status).toBe(401);
    expect((await post('/pair', TOKENS.bob)).status).toBe(200);
    expect(await upgradeStatus(a.urls.relayUrl, ['tradescript.relay.v1'])).toBe(401);
    expect(await upgradeStatus(a.urls.relayUrl, ['tradescript.relay.v1', 'bearer.wrong-token-0123456789'])).toBe(401);
    expect(await upgradeStatus(a.urls.relayUrl, ['tradescript.relay.v1', `bearer.${TOKENS.alice}`])).toBe(101);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = (await (await fetch(`${base}/readyz`)).json()) as { ready: boolean; redis: string };
    expect(ready).toMatchObject({ ready: true, redis: 'ready' });
  });
});

describe('SPEC §2, §9, §14 the person and the pairing, across nodes', () => {
  it('SPEC §2 the person\'s "detach all" in a tab on node A ends the use of that host by an attachment whose client talks to node C: refused for every session of that host, on any node; another host\'s session still works', async () => {
    const { tab, sessionId } = await pairedTab(a, 'alice');
    const sibling = openTab(b.urls.relayUrl, TOKENS.alice, { credentials: tab.credentials });
    tabs.push(sibling);
    const siblingId = await sibling.opened();
    const other = await pairedTab(b, 'alice');
    const attachment = await attachAs(c, 'alice');
    const heard: Array<[string, string]> = [];
    const off = runAsPrincipal('alice', () => c.hub.on('attachmentDetached', (id, hostId) => heard.push([id, hostId])));
    const lists = (t: TestTab) => t.status().attachments.some((x) => x.attachmentId === attachment.attachmentId);
    await waitUntil(
      () => lists(tab) && lists(sibling) && lists(other.tab),
      5_000,
      () => 'every tab to list the attachment',
    );
    tab.session.detach();
    await waitUntil(
      () => heard.length > 0 && !lists(sibling),
      5_000,
      () => 'node C, and the sibling tab on node B, to hear of the detach',
    );
    off();
    expect(heard.map(([id]) => id)).toContain(attachment.attachmentId);
    const before = tab.requests.length + sibling.requests.length;
    for (const target of [sessionId, siblingId]) {
      const refused = await requestAs(c, 'alice', attachment.attachmentId, target, callOp('test.write', 'w-detached'));
      expect(!refused.ok && refused.error.code).toBe('control_unavailable');
    }
    expect(tab.requests.length + sibling.requests.length).toBe(before);
    const still = await requestAs(c, 'alice', attachment.attachmentId, other.sessionId, callOp('test.read', 'other'));
    expect(still, JSON.stringify(still)).toMatchObject({ ok: true });
    expect(lists(other.tab)).toBe(true);
    const listed = await runAsPrincipal('alice', () => a.hub.listSessions());
    const ids = (id: string) => listed.find((s) => s.sessionId === id)?.attachments.map((x) => x.attachmentId);
    expect(ids(sessionId)).not.toContain(attachment.attachmentId);
    expect(ids(other.sessionId)).toContain(attachment.attachmentId);
  });

  it("POST /revoke of a principal's own host closes its sessions on every node and its credential no longer connects; another principal cannot revoke it", async () => {
    const { tab, sessionId } = await pairedTab(b, 'alice');
    const base = (node: ClusterNode) => node.urls.mcpUrl?.replace(/\/mcp$/, '') ?? '';
    const revoke = (node: ClusterNode, token: string) =>
      fetch(`${base(node)}/revoke`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ sessionId }),
      });
    expect((await revoke(c, TOKENS.bob)).status).toBe(404);
    expect(tab.status().open).toBe(true);
    expect((await revoke(c, TOKENS.alice)).status).toBe(200);
    await waitUntil(
      () => tab.connection.status().state === 'unpaired',
      5_000,
      () => 'the tab to be unpaired',
    );
    const attachment = await attachAs(a, 'alice');
    const outcome = await requestAs(a, 'alice', attachment.attachmentId, sessionId, callOp('test.read', 'revoked'));
    expect(!outcome.ok && outcome.error.code).toBe('session_closed');
  });
});

describe('SPEC §2, §13, §14 attachments presented to any node (stateless clients)', () => {
  it('SPEC §2 §13 §14 an attachment resumed on another node keeps its id and namespace, for its principal only; the host the person detached it from stays detached on every node, even after it ended everywhere and came back on a new node', async () => {
    const { tab, sessionId } = await pairedTab(a, 'alice');
    const other = await pairedTab(b, 'alice');
    const first = await attachAs(b, 'alice');
    const info = { clientName: 'stateless', transport: 'http' as const };
    const resumed = await runAsPrincipal('alice', () => (c.hub as ClusterHubPort).resume(first, info));
    expect(resumed).toEqual(first);
    const outcome = await requestAs(c, 'alice', first.attachmentId, sessionId, callOp('test.read', 'resumed'));
    expect(outcome.ok).toBe(true);
    expect(tab.requests.at(-1)?.attachment).toMatchObject(first);
    // Another principal presenting it gets nothing.
    expect(await runAsPrincipal('bob', () => (c.hub as ClusterHubPort).resume(first, info))).toBeNull();
    await waitUntil(
      () => tab.status().attachments.some((x) => x.attachmentId === first.attachmentId),
      5_000,
      () => 'the tab to list it',
    );
    tab.session.detach(first.attachmentId);
    await waitUntilAsync(async () => {
      const answer = await requestAs(c, 'alice', first.attachmentId, sessionId, callOp('test.read', 'after'));
      return !answer.ok && answer.error.code === 'control_unavailable';
    }, 'node C to be refused on the detached host');
    // Its clients on B and C let go (idled out): it ends everywhere.
    await b.hub.detach(first.attachmentId);
    await c.hub.detach(first.attachmentId);
    await waitUntil(
      () => !other.tab.status().attachments.some((x) => x.attachmentId === first.attachmentId),
      5_000,
      () => 'the attachment to end on every node',
    );
    // A node that never saw it, with a tab of the detached host: the handle comes back, the detachment too (from Redis).
    const d = await cluster.addNode();
    const fresh = openTab(d.urls.relayUrl, TOKENS.alice, { credentials: tab.credentials });
    tabs.push(fresh);
    const freshId = await fresh.opened();
    expect(await runAsPrincipal('alice', () => (d.hub as ClusterHubPort).resume(first, info))).toEqual(first);
    const refused = await requestAs(d, 'alice', first.attachmentId, freshId, callOp('test.write', 'w-back'));
    expect(!refused.ok && refused.error.code).toBe('control_unavailable');
    expect(fresh.requests).toEqual([]);
    const elsewhere = await requestAs(d, 'alice', first.attachmentId, other.sessionId, callOp('test.read', 'back'));
    expect(elsewhere.ok).toBe(true);
    expect(other.tab.requests.at(-1)?.attachment).toMatchObject(first);
  });

  it('every node reads the same handle key from Redis, made once', async () => {
    const keys = await Promise.all([a, b, c].map((node) => node.handleKey()));
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('SPEC §13 §14 stateless 2026-07-28 clients across nodes', () => {
  const modern: Client[] = [];
  afterAll(async () => {
    for (const client of modern) await client.close().catch(() => undefined);
  });
  const mcpUrls = () => [a, b, c].map((n) => n.urls.mcpUrl ?? '');
  const read = (sessionId: string, value: string, attachment?: string) => ({
    sessionId,
    target: { scope: 'session' },
    controlId: 'test.read',
    args: [value],
    ...(attachment === undefined ? {} : { attachment }),
  });

  it('a client whose requests go to A, B and C in turn keeps one attachment: the handle minted on one node names the same id and namespace on the others; another principal presenting it gets invalid_input and reaches nothing', async () => {
    const { tab, sessionId } = await pairedTab(a, 'alice', 'mcp');
    const rotation = nodeRotation(mcpUrls());
    const alice = await connectModernClient(TOKENS.alice, rotation);
    modern.push(alice);
    const first = await callToolPayload(alice, 'tradescript_call', read(sessionId, 'mint'));
    expect(first.error, JSON.stringify(first.error)).toBeNull();
    const handle = first.meta.attachment ?? '';
    expect(handle).toMatch(/^ta1\./);
    const from = rotation.hits.length;
    for (const value of ['one', 'two', 'three']) {
      const answer = await callToolPayload(alice, 'tradescript_call', read(sessionId, value, handle));
      expect(answer.error, value).toBeNull();
      expect(answer.meta.attachment).toBe(handle);
    }
    expect(new Set(rotation.hits.slice(from))).toEqual(new Set(mcpUrls()));
    const seen = tab.requests.slice(-4).map((r) => r.attachment);
    expect(new Set(seen.map((x) => `${x.attachmentId} ${x.namespace}`)).size).toBe(1);
    // Listed once, whichever nodes hold it.
    const listed = await runAsPrincipal('alice', () => b.hub.listSessions());
    const ids = listed.find((x) => x.sessionId === sessionId)?.attachments.map((x) => x.attachmentId) ?? [];
    expect(ids.filter((id) => id === seen[0]?.attachmentId)).toHaveLength(1);
    // Bob with Alice's handle, on any node: refused before anything is looked up or sent.
    const bobRotation = nodeRotation(mcpUrls());
    const bob = await connectModernClient(TOKENS.bob, bobRotation);
    modern.push(bob);
    const before = tab.requests.length;
    for (let i = 0; i < 3; i++) {
      const stolen = await callToolPayload(bob, 'tradescript_call', read(sessionId, 'stolen', handle));
      expect(stolen.error).toMatchObject({ code: 'invalid_input', validation_errors: [{ path: ['attachment'] }] });
      expect(JSON.stringify(stolen)).not.toContain(handle);
    }
    const own = await callToolPayload(bob, 'tradescript_call', read(sessionId, 'own'));
    expect(own.error?.code).toBe('session_not_found');
    expect(tab.requests.length).toBe(before);
  });

  it("subscriptions/listen streams on one node each hear their own principal's sessions only", async () => {
    const rotation = (principal: string) => {
      const r = nodeRotation([c.urls.mcpUrl ?? '']);
      return { principal, r };
    };
    const heard = { alice: 0, bob: 0 };
    const listening: Array<{ close(): Promise<void> }> = [];
    // Bob's stream opens first: a feed bound to the first principal would hear only Bob's.
    for (const { principal, r } of [rotation('bob'), rotation('alice')] as const) {
      const client = await connectModernClient(TOKENS[principal as 'alice' | 'bob'], r);
      modern.push(client);
      client.setNotificationHandler('notifications/resources/list_changed', () => {
        heard[principal as 'alice' | 'bob'] += 1;
      });
      listening.push(await client.listen({ resourcesListChanged: true }));
    }
    await pairedTab(b, 'alice');
    await waitUntil(
      () => heard.alice > 0,
      5_000,
      () => "Alice's stream to hear her new session",
    );
    const aliceHeard = heard.alice;
    await pairedTab(a, 'bob');
    await waitUntil(
      () => heard.bob > 0,
      5_000,
      () => "Bob's stream to hear his new session",
    );
    expect(heard.bob).toBe(1);
    expect(heard.alice).toBe(aliceHeard);
    for (const stream of listening) await stream.close();
  });
});

describe('SPEC §14 a tab moving between nodes', () => {
  it('a tab whose connection drops reconnects through the same address to another node with its session id; a call made meanwhile waits and is routed there', async () => {
    const code = await cluster.pairCode(a, 'alice');
    cluster.proxy.targets = [portOf(a)];
    const tab = openTab(cluster.relayUrl, TOKENS.alice, { pairCode: code });
    tabs.push(tab);
    const sessionId = await tab.opened();
    const attachment = await attachAs(c, 'alice');
    // Nowhere to reconnect to for now: the tab stays away until B is behind the address.
    cluster.proxy.targets = [];
    cluster.proxy.drop();
    // Sent once the cluster lists the tab as away (before that it could go down the dying socket, and be lost).
    await waitUntilAsync(async () => {
      const listed = await runAsPrincipal('alice', () => c.hub.listSessions());
      return listed.find((s) => s.sessionId === sessionId)?.connected === false;
    }, 'the session listed as disconnected');
    const pending = requestAs(c, 'alice', attachment.attachmentId, sessionId, callOp('test.read', 'moved'));
    cluster.proxy.targets = [portOf(b)];
    await waitUntil(
      () => cluster.proxy.routed.at(-1) === portOf(b) && tab.status().open,
      10_000,
      () => 'the tab back, on B',
    );
    expect(tab.status().sessionId).toBe(sessionId);
    const outcome = await pending;
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true });
    expect(b.health().sessions).toBeGreaterThan(0);
    cluster.proxy.targets = [portOf(a), portOf(b), portOf(c)];
  });

  it('a duplicated tab presenting a kept id whose socket is open on another node gets a fresh id', async () => {
    const { tab, sessionId } = await pairedTab(a, 'alice');
    const copy = openTab(b.urls.relayUrl, TOKENS.alice, { credentials: tab.credentials, sessionId });
    tabs.push(copy);
    const copyId = await copy.opened();
    expect(copyId).not.toBe(sessionId);
    expect(tab.status()).toMatchObject({ open: true, sessionId });
  });
});

describe('SPEC §14 Redis going away', () => {
  it('while Redis is down a call through a non-owning node fails fast with transport_error; once it is back, service resumes without restarting any node', async () => {
    const { sessionId } = await pairedTab(a, 'alice');
    const attachment = await attachAs(c, 'alice');
    expect((await requestAs(c, 'alice', attachment.attachmentId, sessionId, callOp('test.read', 'up'))).ok).toBe(true);
    await cluster.redis.stop();
    await waitUntil(
      () => !c.health().ready,
      5_000,
      () => 'node C to see Redis gone',
    );
    const during = await requestAs(c, 'alice', attachment.attachmentId, sessionId, callOp('test.read', 'down'));
    expect(!during.ok && during.error.code).toBe('transport_error');
    expect(!during.ok && during.error.retry).toBe('after_backoff');
    // A call that may mutate was not sent either; it re-reads first rather than retrying blindly (SPEC §4).
    const write = await requestAs(c, 'alice', attachment.attachmentId, sessionId, callOp('test.write', 'w-down'));
    expect(!write.ok && write.error).toMatchObject({ code: 'transport_error', retry: 'after_reread' });
    // An MCP client attaching meanwhile works on its node, and is known everywhere once Redis is back.
    const meanwhile = await attachAs(c, 'alice');
    await cluster.redis.start();
    await waitUntil(
      () => [a, b, c].every((n) => n.health().ready),
      15_000,
      () => 'every node ready again',
    );
    const after = await requestAs(c, 'alice', attachment.attachmentId, sessionId, callOp('test.read', 'back'));
    expect(after.ok).toBe(true);
    await waitUntilAsync(async () => {
      const listed = await runAsPrincipal('alice', () => b.hub.listSessions());
      const mine = listed.find((s) => s.sessionId === sessionId);
      return mine?.attachments.some((x) => x.attachmentId === meanwhile.attachmentId) ?? false;
    }, 'the attachment made during the outage listed on node B');
  }, 40_000);
});

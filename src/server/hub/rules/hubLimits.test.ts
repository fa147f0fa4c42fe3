import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMITS,
  HUB_LIMITS,
  jsonByteLength,
  type CatalogDocument,
  type ServerFrame,
} from '../../../protocol/index.js';
import { createLogger } from '../../log.js';
import { createMemorySocketPair, type MemoryClient } from '../../relay/memorySocket.js';
import { Hub, type HubLimits, type HubTiming } from '../hub.js';
import {
  TEST_CATALOG,
  TEST_SECRET,
  openScriptedTab,
  testAuthenticator,
  testControl,
} from '../../testing/scriptedTab.js';

function makeHub(options: { timing?: Partial<HubTiming>; limits?: Partial<HubLimits>; now?: () => number } = {}) {
  return new Hub({ auth: testAuthenticator(), logger: createLogger('silent'), serverVersion: 't', ...options });
}

/** One socket of `hostId`, welcomed. */
async function socketOf(hub: Hub, hostId: string): Promise<MemoryClient> {
  const { server, client } = createMemorySocketPair();
  hub.connect(server, { origin: 'http://127.0.0.1:7392' });
  client.send({
    t: 'hello',
    v: 1,
    agent: { kind: 'page', version: 't' },
    auth: { kind: 'credential', credential: { hostId, secret: TEST_SECRET } },
  });
  await client.next('welcome');
  return client;
}

let refs = 0;
/** Sends `session.open`; resolves with the opened id or the refusal message. */
async function open(
  client: MemoryClient,
  catalog: CatalogDocument = TEST_CATALOG,
  sessionId?: string,
): Promise<{ opened?: string; refused?: string }> {
  const ref = `r${++refs}`;
  client.send({ t: 'session.open', ref, ...(sessionId ? { sessionId } : {}), info: { title: 't' }, catalog });
  let frame: Extract<ServerFrame, { t: 'session.opened' | 'session.refused' }> | undefined;
  while (!frame) {
    await new Promise((resolve) => setImmediate(resolve));
    frame = client.received.find(
      (f): f is typeof frame & object => (f.t === 'session.opened' || f.t === 'session.refused') && f.ref === ref,
    );
  }
  return frame.t === 'session.opened' ? { opened: frame.sessionId } : { refused: frame.message };
}

/** A catalog of `count` distinct controls, each padded to about `pad` bytes. */
function bigCatalog(prefix: string, count: number, pad: number): CatalogDocument {
  const controls = Array.from({ length: count }, (_, i) => ({
    ...testControl(`${prefix}.c${i}`, i % 2 === 0),
    description: 'd'.repeat(pad),
  }));
  return { controls, channels: [] };
}

describe('SPEC §2 sessions per host', () => {
  it('SPEC §2 a host over sessionsPerHost gets a clear refusal; another host still opens, and a reconnect keeps its id', async () => {
    const hub = makeHub();
    const real = await openScriptedTab(hub, { hostId: 'h_real' });
    const hostile = await socketOf(hub, 'h_hostile');
    const answers = [];
    for (let i = 0; i < 64; i += 1) answers.push(await open(hostile));
    expect(answers.filter((a) => a.opened)).toHaveLength(HUB_LIMITS.sessionsPerHost);
    expect(answers.at(-1)?.refused).toMatch(/too many sessions for this terminal: 16 .*sessionsPerHost/);
    // The real tab reloads: its socket goes, and it comes back with its kept id.
    real.client.drop();
    await real.client.whenClosed();
    for (let i = 0; i < 8; i += 1) expect((await open(hostile)).refused).toBeDefined();
    const back = await openScriptedTab(hub, { hostId: 'h_real', sessionId: real.sessionId });
    expect(back.sessionId).toBe(real.sessionId);
    const other = await openScriptedTab(hub, { hostId: 'h_other' });
    expect(other.sessionId).toMatch(/^s_/);
  });

  it('SPEC §2 a host at its cap makes room only from its own tabs away longer than a reload', async () => {
    let now = 1_000_000;
    const hub = makeHub({ now: () => now, timing: { reloadWindowMs: 60_000 } });
    const first = await socketOf(hub, 'h_a');
    const ids: string[] = [];
    for (let i = 0; i < 16; i += 1) ids.push((await open(first)).opened!);
    const b = await openScriptedTab(hub, { hostId: 'h_b' });
    first.drop();
    await first.whenClosed();
    const second = await socketOf(hub, 'h_a');
    // Every h_a tab may be reloading: none is evicted for a new one.
    expect((await open(second)).refused).toMatch(/sessionsPerHost/);
    now += 60_000;
    expect((await open(second)).opened).toBeDefined();
    const live = (await hub.listSessions()).map((s) => s.sessionId);
    expect(live).not.toContain(ids[0]);
    expect(live).toContain(ids[1]);
    expect(live).toContain(b.sessionId);
  });

  it('SPEC §2 64 sessions in all: a fifth host is refused and can evict nobody', async () => {
    let now = 1_000_000;
    const hub = makeHub({ now: () => now });
    const sockets: MemoryClient[] = [];
    for (const host of ['h_1', 'h_2', 'h_3', 'h_4']) {
      const socket = await socketOf(hub, host);
      for (let i = 0; i < 16; i += 1) expect((await open(socket)).opened).toBeDefined();
      sockets.push(socket);
    }
    sockets[0]!.drop();
    await sockets[0]!.whenClosed();
    now += 10 * 60_000 - 1;
    const fifth = await socketOf(hub, 'h_5');
    expect((await open(fifth)).refused).toMatch(/64 sessions/);
    expect(await hub.listSessions()).toHaveLength(64);
  });

  it('SPEC §6 --limit sessionsPerHost=2 lowers the cap', async () => {
    const hub = makeHub({ limits: { sessionsPerHost: 2 } });
    const socket = await socketOf(hub, 'h_a');
    expect((await open(socket)).opened).toBeDefined();
    expect((await open(socket)).opened).toBeDefined();
    expect((await open(socket)).refused).toMatch(/: 2 tabs/);
  });
});

describe('SPEC §6 catalogBytes and the catalog resource', () => {
  it('SPEC §6 a vocabulary over catalogBytes is refused at attach; one at the limit opens', async () => {
    const hub = makeHub({ limits: { catalogBytes: 20_000 } });
    const socket = await socketOf(hub, 'h_a');
    const over = bigCatalog('big', 40, 600);
    expect(jsonByteLength(over)).toBeGreaterThan(20_000);
    expect((await open(socket, over)).refused).toMatch(/more than 20000 bytes .*catalogBytes/);
    const fits = bigCatalog('fit', 10, 600);
    expect(jsonByteLength(fits)).toBeLessThanOrEqual(20_000);
    expect((await open(socket, fits)).opened).toBeDefined();
  });

  it('SPEC §6 an update over catalogBytes keeps nothing of it', async () => {
    const hub = makeHub({ limits: { catalogBytes: 20_000 } });
    const tab = await openScriptedTab(hub, { hostId: 'h_a' });
    tab.client.send({
      t: 'session.update',
      sessionId: tab.sessionId,
      info: { title: 'x' },
      catalog: bigCatalog('b', 40, 600),
    });
    await new Promise((resolve) => setImmediate(resolve));
    const resource = await hub.catalog(DEFAULT_LIMITS.resultBytes);
    expect(resource).toMatchObject({ controls: [], truncated: false, total: { controls: 0, channels: 0 } });
  });

  it('SPEC §3 §6 the resource merges identical declarations and never answers more than resultBytes', async () => {
    const hub = makeHub();
    const shared = bigCatalog('shared', 20, 100);
    for (const host of ['h_1', 'h_2', 'h_3']) await openScriptedTab(hub, { hostId: host, catalog: shared });
    const merged = await hub.catalog(DEFAULT_LIMITS.resultBytes);
    expect(merged.controls).toHaveLength(20);
    expect(merged).toMatchObject({ truncated: false, total: { controls: 20, channels: 0 } });
    for (let i = 0; i < 12; i += 1)
      await openScriptedTab(hub, { hostId: `h_big${i}`, catalog: bigCatalog(`b${i}`, 1000, 600) });
    const max = 256 * 1024;
    const bounded = await hub.catalog(max);
    expect(jsonByteLength(bounded)).toBeLessThanOrEqual(max);
    expect(bounded.truncated).toBe(true);
    expect(bounded.total.controls).toBe(20 + 12 * 1000);
    expect(bounded.controls.length).toBeGreaterThan(100);
    expect(bounded.controls.length).toBeLessThan(bounded.total.controls);
    const full = await hub.catalog(DEFAULT_LIMITS.resultBytes);
    expect(jsonByteLength(full)).toBeLessThanOrEqual(DEFAULT_LIMITS.resultBytes);
  });
});

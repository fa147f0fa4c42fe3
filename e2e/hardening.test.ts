/**
 * Hardening, end to end, written as the attacker would try it (SPEC §2, §5,
 * §6, §9, §11): the real CLI, real MCP clients, real Chromium with the
 * attacker's pages in the SAME browser profile as the paired terminal, and
 * raw relay sockets holding real credentials. One host cannot crowd out
 * another; no page frames the terminal; catalogs, page answers and attachments
 * are bounded; guessing pairing codes burns them; "detach all" is per host;
 * reconciliation proves the whole request. Server memory is sampled after a
 * forced GC by a test-only preload (`harness/fixtures/memorySample.cjs`).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoHooks } from '../demo/src/testHooks.js';
import {
  CATALOG_URI,
  CLOSE_CODES,
  DEFAULT_LIMITS,
  HUB_LIMITS,
  jsonByteLength,
  SESSIONS_URI,
  type CallReceipt,
  type CatalogDocument,
  type CatalogResource,
  type Credential,
  type RequestFrame,
  type SessionsDocument,
} from '../src/protocol/index.js';
import { testControl } from '../src/server/testing/scriptedTab.js';
import { serveElementPage, type ServedElementPage } from './fixtures/element/servePage.js';
import {
  callTool,
  connectHttpClient,
  launchPersistentBrowser,
  newPage,
  pairPage,
  serverBin,
  startServer,
  type PersistentBrowser,
  type ServerHandle,
} from './harness/index.js';
import { RawTab } from './harness/rawTab.js';

const SESSION = { scope: 'session' } as const;
const MEMORY_HOOK = fileURLToPath(new URL('./harness/fixtures/memorySample.cjs', import.meta.url));
const WITH_MEMORY_SAMPLES = { NODE_OPTIONS: `--expose-gc --require ${MEMORY_HOOK}` };
const MB = 1024 * 1024;

interface MemorySample {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

const samples = new Map<number, number>();
/** The server's memory after a forced GC (the preload answers SIGUSR2, counting per process). */
async function memoryOf(server: ServerHandle): Promise<MemorySample> {
  const n = (samples.get(server.pid) ?? 0) + 1;
  samples.set(server.pid, n);
  const mark = `memory-sample ${n} `;
  process.kill(server.pid, 'SIGUSR2');
  const line = await server.waitForStderr(mark, 15_000);
  return JSON.parse(line.slice(line.indexOf(mark) + mark.length)) as MemorySample;
}

const mb = (bytes: number): string => `${(bytes / MB).toFixed(1)} MB`;

/** A fresh code from the running server (`tradescript-mcp pair --json`). */
function freshCode(server: ServerHandle, grant = 'write'): { code: string; pairUrl: string } {
  const out = execFileSync(process.execPath, [serverBin, 'pair', '--grant', grant, '--json'], {
    env: { ...process.env, TRADESCRIPT_MCP_HOME: server.home },
    encoding: 'utf8',
  });
  return JSON.parse(out) as { code: string; pairUrl: string };
}

/** A new host (its own credential) paired from the demo's origin over a raw socket. */
async function rawHost(server: ServerHandle): Promise<Credential> {
  const tab = await RawTab.open(server.ready.relayUrl, new URL(server.ready.demoUrl!).origin);
  const paired = await tab.hello({ kind: 'pair', code: freshCode(server).code });
  tab.close();
  if (!paired.welcome?.credential) throw new Error('raw pairing failed');
  return paired.welcome.credential;
}

/** The credential a paired page keeps in its IndexedDB (what a script on its origin could read). */
function credentialOf(page: Page): Promise<Credential> {
  return page.evaluate(
    () =>
      new Promise<Credential>((resolve, reject) => {
        const open = indexedDB.open('tradescript-bridge');
        open.onerror = () => reject(new Error('no bridge database'));
        open.onsuccess = () => {
          const read = open.result.transaction('credentials').objectStore('credentials').get('host');
          read.onsuccess = () => resolve(read.result as Credential);
        };
      }),
  );
}

async function sessionsOf(client: Client): Promise<SessionsDocument> {
  const read = await client.readResource({ uri: SESSIONS_URI });
  return JSON.parse((read.contents[0] as { text: string }).text) as SessionsDocument;
}

/** Runs `read` on the demo's hooks in the page; it may use nothing but its arguments (`arg` is JSON). */
const demo = <T, A = undefined>(page: Page, read: (hooks: DemoHooks, arg: A) => T, arg?: A): Promise<T> =>
  page.evaluate(`(${read.toString()})(window.__tradescriptDemo, ${JSON.stringify(arg ?? null)})`) as Promise<T>;

/** Waits until the demo tab says paired; returns its session id. */
async function paired(page: Page): Promise<string> {
  await page.waitForFunction(() => window.__tradescriptDemo?.bridgeStatus().state === 'paired', undefined, {
    timeout: 20_000,
  });
  return demo(page, (d) => d.bridgeStatus().sessionId!);
}

/** A receipt answering `request` (a call), with `result`. */
function receiptFor(request: RequestFrame, mutation: boolean, result: unknown): unknown {
  if (request.op.kind !== 'call') throw new Error('expected a call');
  const { call } = request.op;
  return {
    operationId: call.operationId,
    origin: 'mcp',
    controlId: call.controlId,
    target: call.target,
    mutation,
    revisionsBefore: {},
    revisionsAfter: {},
    durationMs: 1,
    result,
  };
}

/** A small BTC limit buy far below the market (it never fills). */
function limitBuy(clientOrderId: string, quantity: string): Record<string, string> {
  return {
    accountId: 'PAPER-001',
    symbol: 'BTCUSDT',
    side: 'buy',
    type: 'limit',
    quantity,
    limitPrice: '40000',
    clientOrderId,
  };
}

/** The session's `orders` revision, as `client` reads it. */
async function ordersRevision(client: Client, sessionId: string): Promise<number> {
  const context = await callTool<{ controllerRevisions: Record<string, Record<string, number>> }>(
    client,
    'tradescript_get_context',
    { sessionId, target: SESSION },
  );
  return context.envelope.data!.controllerRevisions['orders']?.['orders'] ?? 0;
}

/** The placement arguments of a fresh preview. */
async function previewVia(client: Client, sessionId: string, request: Record<string, string>): Promise<unknown> {
  const previewed = await callTool<CallReceipt>(client, 'tradescript_call', {
    sessionId,
    target: SESSION,
    controlId: 'orders.previewOrder',
    args: [request],
  });
  expect(previewed.envelope.error).toBeNull();
  return (previewed.envelope.data!.result as { placementArguments: unknown }).placementArguments;
}

/** The person opens the bridge dock and picks "Trade" in the element's grant control. */
async function raiseGrant(page: Page): Promise<void> {
  await demo(page, (d) => d.dock(true));
  await page.locator('tradescript-bridge label[for="grant-trade"]').click();
  await page.waitForFunction(() => window.__tradescriptDemo?.element().grant === 'trade');
  await demo(page, (d) => d.dock(false));
}

function nested(depth: number): unknown {
  let value: unknown = 'QZXBOTTOMXZQ';
  for (let i = 0; i < depth; i += 1) value = { down: value };
  return value;
}

let browser: PersistentBrowser;
let context: BrowserContext;

beforeAll(async () => {
  browser = await launchPersistentBrowser();
  context = browser.context;
});

afterAll(async () => {
  await browser?.close();
});

describe('one server, one browser profile: the terminal, its attackers and two MCP clients', () => {
  let server: ServerHandle;
  let fixture: ServedElementPage;
  let victim: Page;
  let victimSession: string;
  let x: Client;
  let y: Client;
  let attacker: Server | undefined;

  beforeAll(async () => {
    fixture = await serveElementPage();
    server = await startServer(['demo', '--enable-trading', '--allowed-origin', fixture.origin], {
      env: WITH_MEMORY_SAMPLES,
    });
    ({ page: victim } = await newPage(context));
    victimSession = await pairPage(victim, server.ready.pairUrl!);
    x = await connectHttpClient(server.ready.mcpUrl!);
    y = await connectHttpClient(server.ready.mcpUrl!);
  });

  afterAll(async () => {
    attacker?.close();
    await x?.close().catch(() => undefined);
    await y?.close().catch(() => undefined);
    await server?.close();
    await fixture?.close();
  });

  it('SPEC §2 1,000 HTTP attachments created and ended leave the server’s memory where it was (RSS within 10 MB after a forced GC)', async () => {
    const url = server.ready.mcpUrl!;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const post = async (body: unknown, extra: Record<string, string> = {}) => {
      const res = await fetch(url, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
      await res.text();
      return res;
    };
    const attachment = async (i: number) => {
      const init = await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: `churn-${i}`, version: '1' } },
      });
      const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
      const args = { sessionId: victimSession, target: SESSION };
      await post(
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'tradescript_get_context', arguments: args } },
        session,
      );
      const ended = await fetch(url, { method: 'DELETE', headers: { ...headers, ...session } });
      await ended.text();
      expect(ended.status).toBe(200);
    };
    // The first attachments load the MCP SDK and warm the code: that is not retention.
    for (let i = 0; i < 200; i += 1) await attachment(i);
    const before = await memoryOf(server);
    for (let i = 0; i < 1_000; i += 1) await attachment(i);
    const after = await memoryOf(server);
    process.stderr.write(
      `attachments: 1,000 created and ended; RSS ${mb(before.rss)} → ${mb(after.rss)}, heap used ${mb(before.heapUsed)} → ${mb(after.heapUsed)}\n`,
    );
    expect(after.rss - before.rss).toBeLessThan(10 * MB);
    // Only the two clients still connected are attached.
    const listed = await sessionsOf(x);
    expect(listed.sessions.find((s) => s.sessionId === victimSession)?.attachments).toHaveLength(2);
  });

  it('SPEC §6 a page answering with depth 40 or a 200,000-character string is not a success; a mutation keeps its receipt without the result', async () => {
    const { tab, sessionId } = await RawTab.withSession(
      server.ready.relayUrl,
      new URL(server.ready.demoUrl!).origin,
      await rawHost(server),
      'hostile answers',
    );
    const ask = async (controlId: string, mutation: boolean, result: unknown) => {
      const pending = callTool<CallReceipt>(x, 'tradescript_call', { sessionId, target: SESSION, controlId });
      const request = await tab.next('request');
      tab.send({
        t: 'response',
        id: request.id,
        environment: 'paper',
        outcome: { ok: true, data: receiptFor(request, mutation, result) },
      });
      return pending;
    };
    const deep = await ask('chart.getVisibleRange', false, nested(40));
    expect(deep.envelope.error).toMatchObject({
      code: 'limit_exceeded',
      retry: 'after_correction',
      details: { limit: 'jsonDepth', max: DEFAULT_LIMITS.jsonDepth },
    });
    const long = await ask('chart.getVisibleRange', false, { text: `QZX${'x'.repeat(200_000)}` });
    expect(long.envelope.error).toMatchObject({ code: 'limit_exceeded', details: { limit: 'stringLength' } });
    const write = await ask('chart.setVisibleRange', true, nested(40));
    expect(write.isError).toBe(false);
    expect(write.envelope.data).toMatchObject({
      mutation: true,
      result: null,
      resultOmitted: { reason: 'result-too-large', limit: 'jsonDepth' },
    });
    for (const call of [deep, long, write]) expect(JSON.stringify(call.result)).not.toContain('QZX');
    tab.close();
  });

  it('SPEC §11 an unknown sessionId (128 characters the caller chose) is neither echoed in meta nor logged', async () => {
    const unknown = `QZXUNKNOWN${'q'.repeat(115)}XZQ`;
    const call = await callTool(x, 'tradescript_get_context', { sessionId: unknown, target: SESSION });
    expect(call.envelope.error).toMatchObject({ code: 'session_not_found' });
    expect(call.envelope.meta.sessionId).toBeNull();
    expect(JSON.stringify(call.result)).not.toContain('QZXUNKNOWN');
    expect(server.logs()).not.toContain('QZXUNKNOWN');
  });

  it('SPEC §5 an uncertain placement whose client order id another attachment then uses for other terms stays uncertain on reuse, saying why', async () => {
    const mine = await connectHttpClient(server.ready.mcpUrl!);
    const theirs = await connectHttpClient(server.ready.mcpUrl!);
    await raiseGrant(victim);
    const clientOrderId = `H${Date.now().toString(36).toUpperCase()}`.slice(0, 20);
    const myPlacement = await previewVia(mine, victimSession, limitBuy(clientOrderId, '0.001'));
    const myRevisions = { orders: await ordersRevision(mine, victimSession) };
    const place = (client: Client, placement: unknown, revisions: { orders: number }, operationId: string) =>
      callTool<CallReceipt>(client, 'tradescript_call', {
        sessionId: victimSession,
        target: SESSION,
        controlId: 'orders.placeOrder',
        args: [placement],
        expectedRevisions: revisions,
        context: { operationId },
      });
    // A 503 on the placement: refused before the broker applied it, but a mutation's 503 is uncertain.
    await demo(victim, (d) => d.broker.faults.set('unavailable:orders.placeOrder:1'));
    const first = await place(mine, myPlacement, myRevisions, 'op-h-uncertain');
    expect(first.envelope.error).toMatchObject({ code: 'uncertain_execution', retry: 'after_reconcile' });
    // Another attachment places 0.003 under the same client order id.
    const theirPlacement = await previewVia(theirs, victimSession, limitBuy(clientOrderId, '0.003'));
    const placed = await place(
      theirs,
      theirPlacement,
      { orders: await ordersRevision(theirs, victimSession) },
      'op-h-theirs',
    );
    expect(placed.isError).toBe(false);
    const again = await place(mine, myPlacement, myRevisions, 'op-h-uncertain');
    expect(again.envelope.error).toMatchObject({ code: 'uncertain_execution', retry: 'after_reconcile' });
    expect(again.envelope.error!.message).toMatch(/Reconciliation proved nothing: .*other terms \(quantity\)/);
    expect(again.envelope.data).toBeNull();
    const orders = await demo(
      victim,
      (d, id: string) => d.broker.orders().filter((o) => o.clientOrderId === id),
      clientOrderId,
    );
    expect(orders.map((o) => o.quantity)).toEqual(['0.003']);
    await mine.close();
    await theirs.close();
  });

  it('SPEC §5 an uncertain FX confirmation whose quote another attachment then confirms stays uncertain on reuse, saying why', async () => {
    const mine = await connectHttpClient(server.ready.mcpUrl!);
    const theirs = await connectHttpClient(server.ready.mcpUrl!);
    const quoted = await callTool<CallReceipt>(mine, 'tradescript_call', {
      sessionId: victimSession,
      target: SESSION,
      controlId: 'fx.getQuote',
      args: [{ from: 'USD', to: 'EUR', amount: '100' }],
    });
    const { quoteId } = quoted.envelope.data!.result as { quoteId: string };
    const confirm = (client: Client, operationId: string) =>
      callTool<CallReceipt>(client, 'tradescript_call', {
        sessionId: victimSession,
        target: SESSION,
        controlId: 'fx.confirmQuote',
        args: [{ quoteId }],
        context: { operationId },
      });
    await demo(victim, (d) => d.broker.faults.set('unavailable:fx.confirmQuote:1'));
    expect((await confirm(mine, 'op-h-fx')).envelope.error).toMatchObject({ code: 'uncertain_execution' });
    expect((await confirm(theirs, 'op-h-fx-theirs')).isError).toBe(false);
    const again = await confirm(mine, 'op-h-fx');
    expect(again.envelope.error).toMatchObject({ code: 'uncertain_execution', retry: 'after_reconcile' });
    expect(again.envelope.error!.message).toMatch(
      /Reconciliation proved nothing: this quote was confirmed by another request/,
    );
    await mine.close();
    await theirs.close();
  });

  it('SPEC §9 a page on another port in the SAME profile cannot frame the terminal; a framed <tradescript-bridge> refuses unless the host opts in', async () => {
    const { page: element } = await newPage(context);
    const relay = `?relay=${encodeURIComponent(server.ready.relayUrl)}`;
    await element.goto(`${fixture.url}${relay}#pair=${freshCode(server).code}`);
    await element.waitForFunction(() => window.elementTest?.status()?.state === 'paired', undefined, {
      timeout: 20_000,
    });
    const before = (await sessionsOf(x)).sessions.map((s) => s.sessionId);
    // The terminal's own URL flags are what a framing page would steer.
    const framedDemo = `${server.ready.demoUrl!}?seed=7&faults=rateLimited:orders.placeOrder:5`;
    attacker = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><meta charset="utf-8">
<iframe id="demo" src="${framedDemo}"></iframe>
<iframe id="element" src="${fixture.url}${relay}"></iframe>
<iframe id="opted" src="${fixture.url}${relay}&allowFramed=1"></iframe>`);
    });
    await new Promise<void>((resolve) => attacker!.listen(0, '127.0.0.1', resolve));
    const { page } = await newPage(context);
    await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
    const frameOf = (src: string) => page.frames().find((f) => f !== page.mainFrame() && f.url().startsWith(src));
    // The opted-in element pairs with the stored credential: the attack is real where the host allows it.
    await expect
      .poll(
        () =>
          frameOf(`${fixture.url}${relay}&allowFramed=1`)?.evaluate(() => window.elementTest?.status()?.state ?? null),
        { timeout: 20_000 },
      )
      .toBe('paired');
    const refusing = frameOf(`${fixture.url}${relay}`)!;
    await refusing.waitForFunction(
      () => document.querySelector('tradescript-bridge')?.shadowRoot?.querySelector('[data-testid=framed]') !== null,
    );
    expect(await refusing.evaluate(() => window.elementTest?.status() ?? null)).toBeNull();
    expect(await refusing.locator('tradescript-bridge [data-testid=framed]').innerText()).toMatch(
      /inside a frame.*allow-framed/,
    );
    // The demo refuses to be framed at all: the browser never runs it there.
    const demoFrame = page
      .frames()
      .find((f) => f !== page.mainFrame() && f.name() === '' && !f.url().startsWith(fixture.url));
    const framedHooks = await demoFrame
      ?.evaluate(() => typeof (window as { __tradescriptDemo?: unknown }).__tradescriptDemo)
      .catch(() => 'blocked');
    expect(framedHooks === 'undefined' || framedHooks === 'blocked' || framedHooks === undefined).toBe(true);
    const after = (await sessionsOf(x)).sessions.map((s) => s.sessionId);
    const added = after.filter((id) => !before.includes(id));
    expect(added).toHaveLength(1);
    expect(await demo(victim, (d) => d.bridgeStatus().state)).toBe('paired');
    await page.close();
    await element.close();
  });

  it('SPEC §2 two hosts: the terminal’s "detach all" ends its clients’ use of it only; the other host’s client is untouched', async () => {
    const other = await RawTab.withSession(
      server.ready.relayUrl,
      new URL(server.ready.demoUrl!).origin,
      await rawHost(server),
      'other host',
    );
    const answerOther = async (pending: Promise<unknown>) => {
      const request = await other.tab.next('request');
      other.tab.send({
        t: 'response',
        id: request.id,
        environment: 'paper',
        outcome: { ok: true, data: receiptFor(request, false, { other: true }) },
      });
      return pending;
    };
    const readOther = (client: Client) =>
      callTool<CallReceipt>(client, 'tradescript_call', {
        sessionId: other.sessionId,
        target: SESSION,
        controlId: 'chart.getVisibleRange',
      });
    const bindings = [{ channelId: 'data.quotes', bindingId: 'q', options: { symbols: ['BTCUSDT'] } }];
    const started = await callTool<{ subscriptionId: string }>(x, 'tradescript_subscribe', {
      action: 'start',
      sessionId: victimSession,
      target: SESSION,
      bindings,
    });
    expect(started.envelope.error).toBeNull();
    const sources = () => demo(victim, (d) => d.sources()['data.quotes@session']!);
    const bound = await sources();
    expect(bound.subscribed - bound.released).toBeGreaterThanOrEqual(1);
    // The person presses "Detach all" in the terminal's bridge dock.
    await demo(victim, (d) => d.dock(true));
    await victim.locator('tradescript-bridge [part=detach]').click();
    await victim.waitForFunction(() => window.__tradescriptDemo!.bridgeStatus().attachments.length === 0);
    await expect.poll(async () => (await sources()).released, { timeout: 10_000 }).toBe(bound.subscribed);
    for (const client of [x, y]) {
      const refused = await callTool(client, 'tradescript_get_context', { sessionId: victimSession, target: SESSION });
      expect(refused.envelope.error).toMatchObject({ code: 'control_unavailable' });
    }
    // The other host's session still works for both clients, whose connections stay open.
    expect((await answerOther(readOther(y))) as { isError: boolean }).toMatchObject({ isError: false });
    expect((await answerOther(readOther(x))) as { isError: boolean }).toMatchObject({ isError: false });
    expect(other.tab.frames.some((f) => f.t === 'attachment.ended')).toBe(false);
    const listed = await sessionsOf(y);
    expect(listed.sessions.find((s) => s.sessionId === victimSession)?.attachments).toEqual([]);
    expect(listed.sessions.find((s) => s.sessionId === other.sessionId)?.attachments.length).toBeGreaterThanOrEqual(2);
    other.tab.close();
  });
});

describe('SPEC §2 sessions per host: one host cannot crowd out another', () => {
  let server: ServerHandle;
  let client: Client;

  beforeAll(async () => {
    server = await startServer(['demo']);
    client = await connectHttpClient(server.ready.mcpUrl!);
  });

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await server?.close();
  });

  it('SPEC §2 64 sessions from one host, then a reload of the real tab (another host): it gets its own session back and keeps working', async () => {
    const { page: real } = await newPage(context);
    const realSession = await pairPage(real, freshCode(server).pairUrl);
    const origin = new URL(server.ready.demoUrl!).origin;
    const hostile = await RawTab.open(server.ready.relayUrl, origin);
    await hostile.hello({ kind: 'credential', credential: await rawHost(server) });
    const answers = [];
    for (let i = 0; i < 64; i += 1) answers.push(await hostile.openSession(`flood ${i}`));
    expect(answers.filter((a) => a.sessionId !== undefined)).toHaveLength(HUB_LIMITS.sessionsPerHost);
    expect(answers.at(-1)?.refused).toMatch(/too many sessions for this terminal: 16 .*sessionsPerHost/);
    await real.reload();
    expect(await paired(real)).toBe(realSession);
    const context1 = await callTool(client, 'tradescript_get_context', { sessionId: realSession, target: SESSION });
    expect(context1.envelope.error).toBeNull();
    // A script holding the real tab's own credential fills the rest of that host's slots…
    const thief = await RawTab.open(server.ready.relayUrl, origin);
    await thief.hello({ kind: 'credential', credential: await credentialOf(real) });
    let opened = 0;
    for (let i = 0; i < 20; i += 1) if ((await thief.openSession(`thief ${i}`)).sessionId) opened += 1;
    expect(opened).toBe(HUB_LIMITS.sessionsPerHost - 1);
    // …yet the reloading tab still gets its own session back,
    await real.reload();
    expect(await paired(real)).toBe(realSession);
    expect(
      (await callTool(client, 'tradescript_get_context', { sessionId: realSession, target: SESSION })).isError,
    ).toBe(false);
    // and a new tab of that host is refused with a message the page shows.
    const { page: extra } = await newPage(context);
    await extra.goto(server.ready.demoUrl!);
    await extra.waitForFunction(
      () => /too many sessions/.test(window.__tradescriptDemo?.bridgeStatus().message ?? ''),
      undefined,
      {
        timeout: 20_000,
      },
    );
    expect(await extra.getByTestId('bridge-status').getAttribute('title')).toMatch(
      /too many sessions for this terminal/,
    );
    const listed = await sessionsOf(client);
    expect(listed.total).toBe(2 * HUB_LIMITS.sessionsPerHost);
    expect(listed.sessions.filter((s) => s.sessionId === realSession)).toHaveLength(1);
    hostile.close();
    thief.close();
    await extra.close();
    await real.close();
  });
});

/** A catalog of `count` distinct controls under `prefix`, each padded with `pad` description characters. */
function bigCatalog(prefix: string, count: number, pad: number): CatalogDocument {
  const controls = Array.from({ length: count }, (_, i) => ({
    ...testControl(`${prefix}.c${i}`, i % 2 === 0),
    description: `${prefix} ${'d'.repeat(pad)}`,
  }));
  return { controls, channels: [] };
}

describe('one server without a browser: catalogs, pairing guesses and its home', () => {
  let server: ServerHandle;
  let client: Client;
  let home: string;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'tsmcp-hardening-'));
    chmodSync(home, 0o755);
    server = await startServer(['demo'], { home, env: WITH_MEMORY_SAMPLES });
    client = await connectHttpClient(server.ready.mcpUrl!);
  });

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await server?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('SPEC §9 an existing home folder of mode 0755 is tightened to 0700, and the log says so', () => {
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(server.logs()).toMatch(/home folder tightened to 0700 was="0755"/);
  });

  it('SPEC §6 twelve maximal catalogs, then a catalog read: it fits resultBytes (truncated, total) and the server’s memory stays bounded', async () => {
    const origin = new URL(server.ready.demoUrl!).origin;
    const credential = await rawHost(server);
    await callTool(client, 'tradescript_get_context', { sessionId: 's_warm', target: SESSION });
    await client.readResource({ uri: CATALOG_URI });
    const start = await memoryOf(server);
    const tabs: RawTab[] = [];
    let perCatalog = 0;
    for (let i = 0; i < 12; i += 1) {
      const catalog = bigCatalog(`big${i}`, 1_000, 725);
      perCatalog = jsonByteLength(catalog);
      const { tab } = await RawTab.withSession(server.ready.relayUrl, origin, credential, `catalog ${i}`, catalog);
      tabs.push(tab);
    }
    expect(perCatalog).toBeLessThanOrEqual(HUB_LIMITS.catalogBytes);
    expect(perCatalog).toBeGreaterThan(0.95 * HUB_LIMITS.catalogBytes);
    // One byte more is refused at attach.
    const over = await RawTab.open(server.ready.relayUrl, origin);
    await over.hello({ kind: 'credential', credential });
    const refused = await over.openSession('over', bigCatalog('over', 1_000, 900));
    expect(refused.refused).toMatch(/catalogBytes/);
    const attached = await memoryOf(server);
    const read = await client.readResource({ uri: CATALOG_URI });
    const text = (read.contents[0] as { text: string }).text;
    const afterRead = await memoryOf(server);
    const resource = JSON.parse(text) as CatalogResource;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(DEFAULT_LIMITS.resultBytes);
    expect(resource.truncated).toBe(true);
    expect(resource.total.controls).toBe(12 * 1_000);
    expect(resource.controls.length).toBeGreaterThan(1_000);
    process.stderr.write(
      `catalogs: 12 × ${(perCatalog / 1024).toFixed(0)} KB; read ${(Buffer.byteLength(text) / MB).toFixed(2)} MB of ${resource.total.controls} controls (listed ${resource.controls.length}); RSS ${mb(start.rss)} → ${mb(attached.rss)} attached → ${mb(afterRead.rss)} after the read\n`,
    );
    expect(attached.rss - start.rss).toBeLessThan(100 * MB);
    expect(afterRead.rss - attached.rss).toBeLessThan(20 * MB);
    for (const tab of [...tabs, over]) tab.close();
  });

  it('SPEC §9 a guessing loop bounded in time ends with every outstanding code burned; the log counts wrong codes, never a code', async () => {
    const origin = new URL(server.ready.demoUrl!).origin;
    const outstanding = [freshCode(server).code, freshCode(server, 'trade').code, freshCode(server).code];
    const alphabet = '23456789ABCDEFGHJKMNPQRSTWXYZ';
    const deadline = Date.now() + 20_000;
    let wrong = 0;
    while (wrong < 25 && Date.now() < deadline) {
      let guess = '';
      for (let k = 0; k < 8; k += 1) guess += alphabet[Math.floor(Math.random() * alphabet.length)];
      const tab = await RawTab.open(server.ready.relayUrl, origin);
      const outcome = await tab.hello({ kind: 'pair', code: `${guess.slice(0, 4)}-${guess.slice(4)}` });
      if (outcome.closed?.code === CLOSE_CODES.unauthorized) wrong += 1;
      tab.close();
    }
    expect(wrong).toBe(25);
    for (const code of outstanding) {
      const tab = await RawTab.open(server.ready.relayUrl, origin);
      expect((await tab.hello({ kind: 'pair', code })).closed?.code).toBe(CLOSE_CODES.unauthorized);
    }
    const logs = server.logs();
    expect(logs).toMatch(/pairing codes burned after wrong codes.*wrongCodes=20/);
    for (const code of outstanding) expect(logs).not.toContain(code);
    // The person runs `pair` again: a fresh code pairs.
    const tab = await RawTab.open(server.ready.relayUrl, origin);
    expect((await tab.hello({ kind: 'pair', code: freshCode(server).code })).welcome?.credential).toBeDefined();
    tab.close();
  });
});

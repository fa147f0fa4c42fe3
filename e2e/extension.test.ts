/**
 * The Chrome MV3 extension in real Chromium (SPEC §2, §8, §9, §10). The built
 * `dist/extension` loads unpacked; the server runs with no origin flag (the
 * relay admits the extension by default); the popup pairs with the code of
 * the real CLI's pairing link. Main path: the real demo terminal in extension
 * mode (`?bridge=extension`), allowed in the popup, serves a real MCP client's
 * chart call and snapshot, shows in the popup's activity, and keeps its
 * session id across a stopped service worker. A fixture terminal then covers
 * what the demo cannot show: another origin (a page, a foreign iframe) gets
 * nothing, a mutation in flight at a stop is uncertain, the grant applies, the
 * relay credential never reaches the page, and revoking ends it all.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { BrowserContext, Page, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SESSIONS_URI,
  type CallReceipt,
  type ContextData,
  type SessionsDocument,
  type SnapshotData,
} from '../src/protocol/index.js';
import { BROWSER_CDP_ARGS, BrowserCdp } from './fixtures/extension/browserCdp.js';
import {
  chartRange,
  countSdkCaptures,
  demoPaired,
  demoView,
  openDemoInExtensionMode,
} from './fixtures/extension/demoTab.js';
import { extensionIdOf } from './fixtures/extension/extensionId.js';
import { fixtureTab, pageStorageDump } from './fixtures/extension/fixtureTab.js';
import { PopupDriver } from './fixtures/extension/popupDriver.js';
import { servePages, type ServedPages } from './fixtures/extension/servePages.js';
import {
  callTool,
  connectHttpClient,
  imageBytes,
  launchPersistentBrowser,
  repoRoot,
  startServer,
  type PersistentBrowser,
  type ServerHandle,
} from './harness/index.js';

const EXTENSION_DIR = join(repoRoot, 'dist/extension');
const SESSION = { scope: 'session' } as const;
const MAIN_CHART = { scope: 'chart', chartId: 'btc-main' } as const;

let pages: ServedPages;
let server: ServerHandle;
let browser: PersistentBrowser;
let context: BrowserContext;
let cdp: BrowserCdp;
let extensionId: string;
let worker: Worker;
let popup: PopupDriver;
let client: Client;
let credentialSecret: string;

async function sessions(): Promise<SessionsDocument> {
  const read = await client.readResource({ uri: SESSIONS_URI });
  const first = read.contents[0];
  return JSON.parse(first && 'text' in first ? first.text : '{}') as SessionsDocument;
}

beforeAll(async () => {
  extensionId = extensionIdOf(EXTENSION_DIR);
  pages = await servePages();
  // No --allowed-origin: the relay admits the TradeScript extension by default.
  server = await startServer(['demo']);
  browser = await launchPersistentBrowser({ extensionPaths: [EXTENSION_DIR], args: BROWSER_CDP_ARGS });
  context = browser.context;
  worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
  cdp = await BrowserCdp.connect(browser.userDataDir);
  client = await connectHttpClient(server.ready.mcpUrl!);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await pages?.close();
});

describe('Chrome extension with the demo terminal (?bridge=extension)', () => {
  let demo: Page;
  let demoOrigin: string;
  let demoSession: string;
  const requested: string[] = [];

  const viewportRevision = async (): Promise<number> => {
    const read = await callTool<ContextData>(client, 'tradescript_get_context', {
      sessionId: demoSession,
      target: MAIN_CHART,
    });
    return read.envelope.data!.controllerRevisions['chart']!['viewport']!;
  };

  /** Moves the main chart back by half its span through MCP; returns the receipt and the range asked for. */
  const moveChart = async () => {
    const shown = await chartRange(demo, MAIN_CHART.chartId);
    const span = shown.endTime - shown.startTime;
    const wanted = {
      startTime: shown.startTime - Math.floor(span / 2),
      endTime: shown.endTime - Math.floor(span / 2),
    };
    const call = await callTool<CallReceipt>(client, 'tradescript_call', {
      sessionId: demoSession,
      target: MAIN_CHART,
      controlId: 'chart.setVisibleRange',
      args: [wanted],
      expectedRevisions: { viewport: await viewportRevision() },
    });
    return { call, shown };
  };

  it('SPEC §10 the unpacked MV3 extension loads with its fixed key: a stable id and a module service worker', () => {
    expect(extensionId).toBe('iopolekcdmpoldckaknpdaaiphniefbl');
    expect(worker.url()).toBe(`chrome-extension://${extensionId}/sw.js`);
  });

  it('SPEC §9 §10 the popup pairs with the code of the ready line’s pairing link, with no origin flag on the server', async () => {
    popup = await PopupDriver.open(context, extensionId);
    await popup.setRelay(server.ready.relayUrl);
    await expect.poll(() => popup.relayState()).toBe('unpaired');
    await popup.pair(new URL(server.ready.pairUrl!).hash.replace(/^#pair=/, ''));
    const stored = await worker.evaluate(() => chrome.storage.local.get('credential'));
    credentialSecret = (stored['credential'] as { secret: string }).secret;
    expect(credentialSecret.length).toBeGreaterThanOrEqual(16);
  });

  it('SPEC §2 §10 the demo’s origin allowed in the popup links the demo in extension mode: no element, the header says so', async () => {
    demoOrigin = new URL(server.ready.demoUrl!).origin;
    await popup.allowSite(demoOrigin);
    demo = await context.newPage();
    demo.on('request', (request) => requested.push(new URL(request.url()).pathname));
    await openDemoInExtensionMode(demo, server.ready.demoUrl!);
    demoSession = await demoPaired(demo);
    const view = await demoView(demo);
    expect(view).toMatchObject({ mode: 'extension', elementDefined: false, toggle: 'Agents: Read & write' });
    expect(view.link).toMatchObject({ linked: true, state: 'paired', sessionId: demoSession });
    expect(await demo.getByTestId('bridge-mode').isVisible()).toBe(true);
    expect(await demo.getByTestId('bridge-status').getAttribute('data-state')).toBe('paired');
    expect(await demo.getByTestId('pairing-banner').isHidden()).toBe(true);
    const summary = (await sessions()).sessions.find((s) => s.sessionId === demoSession);
    expect(summary).toMatchObject({ origin: demoOrigin, hostKind: 'extension', grant: 'write', connected: true });
    expect(summary?.title).toBe('TradeScript Demo Terminal');
  });

  it('SPEC §3 §5 an MCP client’s chart.setVisibleRange moves the demo’s chart and shows in the popup’s activity', async () => {
    const { call, shown } = await moveChart();
    expect(call.isError).toBe(false);
    expect(call.envelope.meta.sessionId).toBe(demoSession);
    const applied = call.envelope.data!.result as { startTime: number; endTime: number };
    expect(applied.startTime).toBeLessThan(shown.startTime);
    await expect
      .poll(() => chartRange(demo, MAIN_CHART.chartId))
      .toEqual({
        startTime: applied.startTime,
        endTime: applied.endTime,
      });
    await expect.poll(() => popup.activity(demoOrigin).first().textContent()).toMatch(/chart\.setVisibleRange\s*ok/);
    await expect.poll(() => popup.session(demoSession).locator('.clients').textContent()).toContain('tradescript-e2e');
    await expect.poll(() => demo.getByTestId('bridge-clients').textContent()).toBe('1 MCP client');
  });

  it('SPEC §8 a chart snapshot, once the action granted activeTab, is the visible tab cropped to the chart the demo locates', async () => {
    await cdp.triggerAction(extensionId, demoOrigin);
    await demo.bringToFront();
    const sdkCaptures = await countSdkCaptures(demo);
    const surface = await demo.evaluate(() => {
      const rect = document
        .querySelector('[data-testid="panel-chart-btc-main"] .chart-canvas')!
        .getBoundingClientRect();
      return { width: Math.round(rect.width * devicePixelRatio), height: Math.round(rect.height * devicePixelRatio) };
    });
    const snap = await callTool<SnapshotData>(client, 'tradescript_snapshot', {
      sessionId: demoSession,
      target: MAIN_CHART,
    });
    expect(snap.isError).toBe(false);
    expect(snap.envelope.data).toMatchObject({ mimeType: 'image/png', ...surface });
    expect(await sdkCaptures()).toBe(0);
  });

  it('SPEC §8 a snapshot of the whole terminal, the whole visible tab, is the browser’s own PNG byte for byte', async () => {
    await cdp.triggerAction(extensionId, demoOrigin);
    await demo.bringToFront();
    const sdkCaptures = await countSdkCaptures(demo);
    const tab = await demo.evaluate(() => {
      const rect = document.querySelector('[data-testid="terminal"]')!.getBoundingClientRect();
      return {
        rect: [rect.x, rect.y, rect.width, rect.height],
        viewport: [innerWidth, innerHeight],
        width: Math.round(innerWidth * devicePixelRatio),
        height: Math.round(innerHeight * devicePixelRatio),
      };
    });
    expect(tab.rect).toEqual([0, 0, ...tab.viewport]);
    // The browser's own capture of the tab, taken by the extension as a test would; calls kept
    // 600 ms apart, inside captureVisibleTab's quota of two a second.
    const visibleTab = async (): Promise<Buffer> => {
      await new Promise((resolve) => setTimeout(resolve, 600));
      const url = await worker.evaluate(async (origin) => {
        const [shown] = await chrome.tabs.query({ active: true, url: `${origin}/*` });
        return chrome.tabs.captureVisibleTab(shown!.windowId, { format: 'png' });
      }, demoOrigin);
      return Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
    };
    // A still tab: the market paused, the status bar's wall clock (it ticks each second) hidden.
    const still = (on: boolean) =>
      demo.evaluate((pause) => {
        const { market } = window.__tradescriptDemo!;
        if (pause) market.pause();
        else market.resume();
        document.querySelector<HTMLElement>('[data-testid="clock"]')!.style.visibility = pause ? 'hidden' : '';
      }, on);
    await still(true);
    try {
      let last = await visibleTab();
      await expect
        .poll(async () => last.equals((last = await visibleTab())), { timeout: 20_000, interval: 0 })
        .toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 600));
      const snap = await callTool<SnapshotData>(client, 'tradescript_snapshot', {
        sessionId: demoSession,
        target: { scope: 'widget', widgetId: 'terminal' },
      });
      expect(snap.isError).toBe(false);
      expect(snap.envelope.data).toMatchObject({
        mimeType: 'image/png',
        width: tab.width,
        height: tab.height,
        byteLength: last.byteLength,
        scaled: false,
      });
      expect(await sdkCaptures()).toBe(0);
      // Decoded and encoded again, the same pixels would be other bytes.
      expect(imageBytes(snap).equals(last)).toBe(true);
      expect((await visibleTab()).equals(last)).toBe(true);
    } finally {
      await still(false);
    }
  });

  it('SPEC §9 a stopped service worker comes back and the next call runs under the same session id', async () => {
    const before = server.logs();
    await cdp.stopServiceWorker(extensionId);
    const since = () => server.logs().slice(before.length);
    await expect
      .poll(since, { timeout: 15_000 })
      .toMatch(/relay socket closed[\s\S]*session opened sessionId="[^"]+" .*kept=true/);
    expect(since()).toContain(`sessionId="${demoSession}"`);
    expect(await demoPaired(demo)).toBe(demoSession);
    const { call } = await moveChart();
    expect(call.isError).toBe(false);
    expect(call.envelope.meta.sessionId).toBe(demoSession);
    const applied = call.envelope.data!.result as { startTime: number; endTime: number };
    await expect
      .poll(() => chartRange(demo, MAIN_CHART.chartId))
      .toEqual({
        startTime: applied.startTime,
        endTime: applied.endTime,
      });
    // The popup reconnected to the new service worker, which kept the site's activity from before the stop.
    await expect
      .poll(() => popup.activity(demoOrigin).allTextContents())
      .toEqual([
        expect.stringMatching(/chart\.setVisibleRange\s*ok/),
        ...Array.from({ length: 2 }, () => expect.stringMatching(/snapshot\s*ok/)),
        expect.stringMatching(/chart\.setVisibleRange\s*ok/),
      ]);
  });

  it('SPEC §2 §10 the grant set in the popup reaches the demo’s header (the extension sets host.grant)', async () => {
    const card = popup.site(demoOrigin);
    await popup.page.bringToFront();
    await card.locator('button[data-grant=read]').click();
    await expect.poll(async () => (await demoView(demo)).toggle).toBe('Agents: Read only');
    expect(await demo.evaluate(() => window.__tradescriptDemo!.host.grant)).toBe('read');
    await card.locator('button[data-grant=write]').click();
    await expect.poll(async () => (await demoView(demo)).toggle).toBe('Agents: Read & write');
  });

  it('SPEC §9 the demo in extension mode never learns the relay’s address or credential: no config fetch, nothing kept', async () => {
    expect(requested).not.toContain('/tradescript-config.json');
    const dump = await pageStorageDump(demo);
    expect(dump.length).toBeGreaterThan(3);
    for (const text of dump) {
      expect(text).not.toContain(credentialSecret);
      expect(text).not.toContain(server.ready.relayUrl);
    }
  });

  it('SPEC §10 screenshot of the popup with the demo’s site for the README (UPDATE_SCREENSHOTS=1 writes docs/images)', async () => {
    // A fresh popup, as the person sees it when opening it: the forms folded.
    await popup.page.reload();
    await popup.page.bringToFront();
    await popup.site(demoOrigin).waitFor();
    const png = await popup.root.screenshot();
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    if (process.env.UPDATE_SCREENSHOTS !== '1') return;
    mkdirSync(join(repoRoot, 'docs/images'), { recursive: true });
    writeFileSync(join(repoRoot, 'docs/images/popup.png'), png);
  });

  afterAll(async () => {
    await demo?.close();
  });
});

describe('Chrome extension with a fixture terminal: origins, grants, the credential, revoking', () => {
  let terminal: Page;
  let tab: ReturnType<typeof fixtureTab>;
  let sessionId: string;
  const addNote = (text: string) =>
    callTool(client, 'tradescript_call', { sessionId, target: SESSION, controlId: 'notes.add', args: [text] });

  it('SPEC §2 §10 a site allowed in the popup (grant write by default) attaches its tab as a session of that origin', async () => {
    await popup.allowSite(pages.granted);
    terminal = await context.newPage();
    tab = fixtureTab(terminal);
    await terminal.goto(`${pages.granted}/`);
    sessionId = await tab.paired();
    const summary = (await sessions()).sessions.find((s) => s.sessionId === sessionId);
    expect(summary).toMatchObject({ origin: pages.granted, hostKind: 'extension', grant: 'write', connected: true });
    expect((await tab.status())?.linked).toBe(true);
  });

  it('SPEC §3 §10 an MCP client’s call runs in the granted tab and shows in the site’s activity', async () => {
    const { envelope, isError } = await addNote('from mcp');
    expect(isError).toBe(false);
    expect(envelope.data).toMatchObject({ controlId: 'notes.add', result: { count: 1 } });
    expect(await tab.added()).toEqual(['from mcp']);
    await expect.poll(() => popup.activity(pages.granted).first().textContent()).toMatch(/notes\.add\s*ok/);
    await expect.poll(() => popup.session(sessionId).locator('.clients').textContent()).toContain('tradescript-e2e');
  });

  it('SPEC §8 a snapshot uses the page’s capture without activeTab, and the visible tab once the action granted it', async () => {
    const snap = () =>
      callTool<SnapshotData>(client, 'tradescript_snapshot', {
        sessionId,
        target: { scope: 'chart', chartId: 'main' },
      });
    const captures = () => tab.captures();
    await terminal.bringToFront();
    const slow = await snap();
    expect(slow.envelope.data).toMatchObject({ mimeType: 'image/png', width: 480, height: 240 });
    expect(await captures()).toBe(1);
    await cdp.triggerAction(extensionId, pages.granted);
    await terminal.bringToFront();
    const fast = await snap();
    expect(fast.envelope.data).toMatchObject({ mimeType: 'image/png', width: 480, height: 240 });
    expect(await captures()).toBe(1);
    expect(fast.result.content.some((item) => item.type === 'image')).toBe(true);
  });

  it('SPEC §5 §9 a mutation in flight when the service worker stops is reported uncertain and never replayed', async () => {
    const pending = callTool(client, 'tradescript_call', {
      sessionId,
      target: SESSION,
      controlId: 'notes.addSlowly',
      args: ['in flight'],
    });
    await expect.poll(() => tab.started()).toBe(1);
    await cdp.stopServiceWorker(extensionId);
    const { isError, envelope } = await pending;
    expect(isError).toBe(true);
    expect(envelope.error).toMatchObject({ code: 'uncertain_execution', retry: 'after_reconcile' });
    expect(await tab.paired()).toBe(sessionId);
    // The page ran it once, to its end; nothing dispatched it again.
    await expect.poll(() => tab.added(), { timeout: 5_000 }).toEqual(['from mcp', 'in flight']);
    expect(await tab.started()).toBe(1);
  });

  it('SPEC §10 a page of another origin gets no hello, no port, no way to the extension and no session', async () => {
    const foreign = await context.newPage();
    await foreign.goto(`${pages.foreign}/`);
    const heard = await foreign.evaluate(async () => {
      const got: string[] = [];
      window.addEventListener('message', (event) =>
        got.push(`${JSON.stringify(event.data)} ports=${event.ports.length}`),
      );
      window.postMessage({ tag: 'tradescript.extensionLink', v: 1, t: 'hello' }, '*');
      window.postMessage({ tag: 'tradescript.extensionLink', v: 1, t: 'ready' }, '*');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const runtime = (globalThis as { chrome?: { runtime?: { connect?: unknown } } }).chrome?.runtime?.connect;
      return { got, runtime: typeof runtime };
    });
    // Only what the page posted itself (its fixture answers a `ready` with a hello): no `offer`, no port.
    expect(heard.got.length).toBeLessThanOrEqual(3);
    expect(heard.got.every((m) => m.endsWith('ports=0') && !m.includes('offer'))).toBe(true);
    expect(heard.runtime).toBe('undefined');
    expect((await fixtureTab(foreign).status())?.linked).toBe(false);
    expect((await sessions()).sessions.map((s) => s.origin)).not.toContain(pages.foreign);
    await foreign.close();
  });

  it('SPEC §10 a foreign iframe in a granted page cannot take the link: its hellos are not its parent’s', async () => {
    const quiet = await context.newPage();
    await quiet.goto(`${pages.granted}/?expose=0`);
    const seen = fixtureTab(quiet).seen;
    // The content script runs here (the site is allowed) and says it is ready.
    await expect.poll(async () => (await seen()).some((m) => m.includes('"t":"ready"'))).toBe(true);
    await quiet.evaluate(async (src) => {
      const frame = document.createElement('iframe');
      frame.src = src;
      document.body.append(frame);
      await new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    }, `${pages.foreign}/?expose=0`);
    const frame = quiet.frames().find((f) => f.url().startsWith(pages.foreign))!;
    const fromFrame = await frame.evaluate(async () => {
      const got: number[] = [];
      window.addEventListener('message', (event) => got.push(event.ports.length));
      for (let i = 0; i < 10; i++) {
        window.parent.postMessage({ tag: 'tradescript.extensionLink', v: 1, t: 'hello' }, '*');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return got;
    });
    expect(fromFrame.filter((ports) => ports > 0)).toEqual([]);
    expect((await seen()).filter((m) => m.includes('"t":"offer"'))).toEqual([]);
    expect((await sessions()).sessions.filter((s) => s.origin === pages.granted)).toHaveLength(1);
    await quiet.close();
  });

  it('SPEC §9 the granted site framed by a page of another origin, in the same profile, is never linked: no ready, no session', async () => {
    const before = (await sessions()).sessions.filter((s) => s.origin === pages.granted).length;
    const framing = await context.newPage();
    await framing.goto(`${pages.foreign}/?expose=0`);
    await framing.evaluate(async (src) => {
      const frame = document.createElement('iframe');
      frame.src = src;
      document.body.append(frame);
      await new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    }, `${pages.granted}/`);
    const framed = framing.frames().find((f) => f.url().startsWith(pages.granted))!;
    // The framed terminal waits for the extension as it would at the top; no content script runs in a frame.
    await framed.waitForFunction(() => (window as unknown as { extensionTest?: unknown }).extensionTest !== undefined);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const state = await framed.evaluate(() => {
      const w = window as unknown as { extensionTest: { status(): { linked: boolean } | null }; __seen: string[] };
      return {
        linked: w.extensionTest.status()?.linked ?? false,
        ready: w.__seen.some((m) => m.includes('"t":"ready"')),
      };
    });
    expect(state).toEqual({ linked: false, ready: false });
    expect((await sessions()).sessions.filter((s) => s.origin === pages.granted)).toHaveLength(before);
    await framing.close();
  });

  it('SPEC §2 §5 the site’s grant set in the popup applies to the next call (read refuses a write control)', async () => {
    const card = popup.site(pages.granted);
    // A background tab paints no frames, and a click waits for them.
    await popup.page.bringToFront();
    await card.locator('button[data-grant=read]').click();
    await expect.poll(() => tab.grant()).toBe('read');
    const denied = await addNote('while read');
    expect(denied.envelope.error).toMatchObject({
      code: 'control_unavailable',
      details: { reason: 'attachment-grant' },
    });
    await expect
      .poll(async () => (await sessions()).sessions.find((s) => s.sessionId === sessionId)?.grant)
      .toBe('read');
    await card.locator('button[data-grant=write]').click();
    await expect.poll(() => tab.grant()).toBe('write');
    expect((await addNote('write again')).isError).toBe(false);
  });

  it('SPEC §9 the relay credential never reaches the page: not in its storage, IndexedDB or any message it saw', async () => {
    const exposed = { dump: await pageStorageDump(terminal), seen: await tab.seen() };
    expect(exposed.seen.length).toBeGreaterThan(5);
    expect(exposed.seen.some((m) => m.includes('"t":"call"'))).toBe(true);
    for (const text of [...exposed.dump, ...exposed.seen]) expect(text).not.toContain(credentialSecret);
    for (const text of exposed.seen) expect(text).not.toContain(server.ready.relayUrl);
  });

  it('SPEC §10 revoking the site closes its session, tells the page, and no content script runs there any more', async () => {
    const card = popup.site(pages.granted);
    await card.locator('button[name=revoke]').click();
    await card.waitFor({ state: 'detached' });
    await expect.poll(async () => (await tab.status())?.message ?? '').toContain('no longer allows this site');
    await expect
      .poll(async () => (await sessions()).sessions.some((s) => s.sessionId === sessionId && s.connected))
      .toBe(false);
    expect((await addNote('after revoke')).isError).toBe(true);
    await terminal.reload();
    await terminal.waitForTimeout(500);
    const seen = await tab.seen();
    expect(seen.filter((m) => m.includes('"t":"ready"') || m.includes('"t":"offer"'))).toEqual([]);
    expect((await tab.status())?.linked).toBe(false);
  });
});

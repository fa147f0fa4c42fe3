/**
 * The package as users install it (SPEC §10, §11; STYLE 14): the `npm pack`
 * tarball installed into a fresh project outside the repository, its own CLI
 * serving MCP and the relay, a real MCP client calling into Chromium:
 *
 * (a) a Vite + TypeScript app importing `tradescript-mcp` and
 *     `tradescript-mcp/element`, type-checked and built with the project's own
 *     TypeScript and Vite;
 * (b) a static page loading the prebuilt `dist/browser` files from
 *     `/vendor/tradescript/`, not the site root (the bridge worker included);
 * (c) the extension from the tarball's `dist/extension`, loaded unpacked, on a
 *     static page offering its host with `tradescript-mcp/extension`.
 *
 * (d) docs/embedding.md, the vendor guide: every code block is compiled with
 *     the project's TypeScript, built with its Vite and run against the same
 *     server, so the guide cannot rot.
 *
 * One pack and one install serve them all (npm's cache keeps it off the network).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SESSIONS_URI,
  type CallReceipt,
  type ContextData,
  type ListControlsData,
  type SessionsDocument,
  type SnapshotData,
} from '../src/protocol/index.js';
import { extensionIdOf } from './fixtures/extension/extensionId.js';
import { PopupDriver } from './fixtures/extension/popupDriver.js';
import {
  callTool,
  connectHttpClient,
  launchPersistentBrowser,
  startServer,
  type PersistentBrowser,
  type ServerHandle,
} from './harness/index.js';
import { childEnv } from './harness/home.js';
import { guideBlocks, guideCommands, guideFiles } from './harness/guideBlocks.js';
import {
  createConsumerProject,
  serveStatic,
  type ConsumerProject,
  type StaticSite,
} from './harness/consumerProject.js';

const run = promisify(execFile);
const SESSION = { scope: 'session' } as const;

interface ConsumerWindow {
  consumer: { status(): { state: string; sessionId: string | null; message: string | null } | null; notes(): string[] };
}

let project: ConsumerProject;
let viteSite: StaticSite;
let staticSite: StaticSite;
let cdnSite: StaticSite;
let server: ServerHandle;
let browser: PersistentBrowser;
let client: Client;
let typecheck: Promise<{ stdout: string; stderr: string }>;

beforeAll(async () => {
  project = await createConsumerProject(new URL('./fixtures/consumer/', import.meta.url));
  // The vendor's own checks and build, from the project's node_modules only.
  typecheck = project.exec('typescript', ['-p', 'viteApp/tsconfig.json']);
  typecheck.catch(() => undefined);
  await project.exec('vite', ['build', 'viteApp', '--logLevel', 'warn']);
  viteSite = await serveStatic({
    '/embedding/': join(project.dir, 'embedding/dist'),
    '/': join(project.dir, 'viteApp/dist'),
  });
  staticSite = await serveStatic({
    '/guide/': join(project.dir, 'public'),
    '/vendor/tradescript/': join(project.packageDir, 'dist/browser'),
    '/vendor/zod/': join(project.dir, 'node_modules/zod'),
    '/': join(project.dir, 'staticSite'),
  });
  cdnSite = await serveStatic(
    { '/tradescript-mcp/': join(project.packageDir, 'dist/browser') },
    { 'access-control-allow-origin': '*' },
  );
  server = await startServer(
    [
      'serve',
      '--http',
      '127.0.0.1:0',
      '--enable-trading',
      '--allowed-origin',
      viteSite.origin,
      '--allowed-origin',
      staticSite.origin,
    ],
    { bin: project.cli },
  );
  browser = await launchPersistentBrowser({ extensionPaths: [join(project.packageDir, 'dist/extension')] });
  client = await connectHttpClient(server.ready.mcpUrl!);
}, 300_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
  await viteSite?.close();
  await staticSite?.close();
  await cdnSite?.close();
  project?.close();
});

/** A fresh single-use code from the installed CLI's `pair`. */
async function pairCode(): Promise<string> {
  const { stdout } = await run(process.execPath, [project.cli, 'pair', '--json'], { env: childEnv(server.home) });
  return (JSON.parse(stdout) as { code: string }).code;
}

/** Requests the page made that found nothing (a browser's own favicon request aside). */
const notFound = (site: StaticSite) => site.missing.filter((path) => path !== '/favicon.ico');

/** Waits until the consumer page reports `paired`; returns its session id (else fails with what the page saw). */
async function paired(page: Page, site: StaticSite): Promise<string> {
  const status = () => page.evaluate(() => (window as unknown as ConsumerWindow).consumer?.status() ?? null);
  try {
    await page.waitForFunction(
      () => (window as unknown as ConsumerWindow).consumer?.status()?.state === 'paired',
      null,
      { timeout: 30_000 },
    );
  } catch {
    throw new Error(
      `the page did not pair: ${JSON.stringify(await status())}; not found: ${notFound(site).join(', ')}`,
    );
  }
  const sessionId = (await status())?.sessionId;
  if (!sessionId) throw new Error('paired without a session id');
  return sessionId;
}

/** An MCP client adds a note in the session; the page's control ran it. */
async function addNote(page: Page, sessionId: string, text: string, revisions?: Record<string, number>) {
  const added = await callTool<CallReceipt>(client, 'tradescript_call', {
    sessionId,
    target: SESSION,
    controlId: 'notes.add',
    args: [text],
    ...(revisions ? { expectedRevisions: revisions } : {}),
  });
  expect(added.isError, JSON.stringify(added.envelope.error)).toBe(false);
  expect(await page.evaluate(() => (window as unknown as ConsumerWindow).consumer.notes())).toContain(text);
  return added.envelope.data!;
}

describe('SPEC §10 the packed package in a vendor’s own setups', () => {
  it('SPEC §10 (a) a Vite + TypeScript app imports tradescript-mcp and tradescript-mcp/element, type-checks, builds with its own Vite and pairs', async () => {
    await expect(typecheck).resolves.toBeDefined();
    const page = await browser.context.newPage();
    await page.goto(`${viteSite.origin}/?relay=${encodeURIComponent(server.ready.relayUrl)}#pair=${await pairCode()}`);
    const sessionId = await paired(page, viteSite);
    const context = await callTool<ContextData>(client, 'tradescript_get_context', { sessionId, target: SESSION });
    const revisions = context.envelope.data!.controllerRevisions['notes']!;
    const receipt = await addNote(page, sessionId, 'from the Vite app', revisions);
    expect(receipt.revisionsAfter).toEqual({ notes: revisions['notes']! + 1 });
    expect(notFound(viteSite)).toEqual([]);
    await page.close();
  });

  it('SPEC §10 (b) a static page loads the prebuilt dist/browser files from /vendor/tradescript/, worker included, and pairs', async () => {
    const page = await browser.context.newPage();
    await page.goto(
      `${staticSite.origin}/?relay=${encodeURIComponent(server.ready.relayUrl)}#pair=${await pairCode()}`,
    );
    const sessionId = await paired(page, staticSite);
    await addNote(page, sessionId, 'from the static page');
    expect(staticSite.requested).toContainEqual(
      expect.stringMatching(/^\/vendor\/tradescript\/assets\/worker-[\w-]+\.js$/),
    );
    expect(notFound(staticSite)).toEqual([]);
    await page.close();
  });

  it('SPEC §10 (b) the same files from another origin (a CDN): the worker starts through a same-origin trampoline and pairs', async () => {
    const page = await browser.context.newPage();
    const cdn = encodeURIComponent(`${cdnSite.origin}/tradescript-mcp`);
    const relay = encodeURIComponent(server.ready.relayUrl);
    await page.goto(`${staticSite.origin}/cdn.html?cdn=${cdn}&relay=${relay}#pair=${await pairCode()}`);
    const sessionId = await paired(page, staticSite);
    await addNote(page, sessionId, 'from the CDN page');
    expect(cdnSite.requested).toContainEqual(expect.stringMatching(/^\/tradescript-mcp\/assets\/worker-[\w-]+\.js$/));
    expect(notFound(cdnSite)).toEqual([]);
    await page.close();
  });

  it('SPEC §10 (c) the extension loaded unpacked from the tarball’s dist/extension links a page using tradescript-mcp/extension', async () => {
    const extensionDir = join(project.packageDir, 'dist/extension');
    const popup = await PopupDriver.open(browser.context, extensionIdOf(extensionDir));
    await popup.setRelay(server.ready.relayUrl);
    await popup.pair(await pairCode());
    await popup.allowSite(staticSite.origin);
    const page = await browser.context.newPage();
    await page.goto(`${staticSite.origin}/extension.html`);
    const sessionId = await paired(page, staticSite);
    await addNote(page, sessionId, 'through the extension');
    expect(notFound(staticSite)).toEqual([]);
    await page.close();
  });
});

/** The first session whose title is `title`, once the server lists it. */
async function sessionTitled(title: string): Promise<SessionsDocument['sessions'][number]> {
  let found: SessionsDocument['sessions'][number] | undefined;
  await expect
    .poll(async () => {
      const read = await client.readResource({ uri: SESSIONS_URI });
      const doc = JSON.parse((read.contents[0] as { text: string }).text) as SessionsDocument;
      found = doc.sessions.find((s) => s.title === title && s.connected);
      return found !== undefined;
    })
    .toBe(true);
  return found!;
}

/** A call that must succeed; its receipt. */
async function succeed(args: Record<string, unknown>): Promise<CallReceipt> {
  const done = await callTool<CallReceipt>(client, 'tradescript_call', args);
  expect(done.isError, JSON.stringify(done.envelope.error)).toBe(false);
  return done.envelope.data!;
}

describe('SPEC §10 docs/embedding.md: every code block compiles and runs', () => {
  const blocks = guideBlocks();
  const CHART = { scope: 'chart', chartId: 'main' } as const;
  const BLOTTER = { scope: 'widget', widgetId: 'blotter' } as const;

  it('SPEC §10 each block is a file of the guide’s terminal or a command (nothing left unrun)', () => {
    expect(blocks.length).toBeGreaterThan(8);
    for (const block of blocks) {
      const runnable = block.lang === 'sh' || (block.file !== null && ['ts', 'html'].includes(block.lang));
      expect(runnable, `docs/embedding.md:${block.line} \`\`\`${block.lang} ${block.file ?? ''}`).toBe(true);
    }
  });

  it('SPEC §10 §11 its commands: npm install names what the project installed, the CLI accepts every tradescript-mcp line, the copies run', async () => {
    const { parseCommand } = (await import(
      pathToFileURL(join(project.packageDir, 'dist/node/server/index.js')).href
    )) as {
      parseCommand: (argv: string[], env: NodeJS.ProcessEnv) => { kind: string };
    };
    const commands = guideCommands(blocks);
    for (const command of commands) {
      const words = command.split(/\s+/);
      if (command.startsWith('npm install ')) {
        expect(words.slice(2).sort(), command).toEqual(['tradescript-mcp', 'zod']);
      } else if (command.startsWith('npx tradescript-mcp ')) {
        expect(() => parseCommand(words.slice(2), {}), command).not.toThrow();
      } else {
        await run('sh', ['-c', command], { cwd: project.dir });
      }
    }
    expect(commands.some((c) => c.includes('--allowed-origin'))).toBe(true);
  });

  it('SPEC §10 its TypeScript type-checks with the project’s tsc and builds with its Vite', async () => {
    for (const [file, code] of guideFiles(blocks, server.ready.relayUrl)) {
      const path = file.startsWith('public/') ? join(project.dir, file) : join(project.dir, 'embedding', file);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, code);
    }
    writeFileSync(
      join(project.dir, 'embedding/tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          isolatedModules: true,
        },
        include: ['*.ts'],
      }),
    );
    writeFileSync(
      join(project.dir, 'embedding/vite.config.mjs'),
      `export default { base: './', build: { rollupOptions: { input: ['index.html', 'extension.html'] } } };\n`,
    );
    await project.exec('typescript', ['-p', 'embedding/tsconfig.json']);
    await project.exec('vite', ['build', 'embedding', '--logLevel', 'warn']);
  });

  it('SPEC §2 §3 §5 §7 §8 the element page: reads, a revision-checked write, a trade once the person grants it, the custom channel, both snapshot targets', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${viteSite.origin}/embedding/index.html#pair=${await pairCode()}`);
    await expect.poll(() => page.locator('tradescript-bridge [data-testid=state]').innerText()).toBe('Paired');
    const { sessionId } = await sessionTitled('My terminal');

    const session = await callTool<ContextData>(client, 'tradescript_get_context', { sessionId, target: SESSION });
    expect(session.envelope.data!.availableTargets.map((t) => t.target)).toEqual(
      expect.arrayContaining([SESSION, CHART, BLOTTER]),
    );
    expect(session.envelope.data!.availableSubscriptions.map((c) => c.channelId)).toContain('orders.placed');
    const chart = await callTool<ContextData>(client, 'tradescript_get_context', { sessionId, target: CHART });
    const viewport = chart.envelope.data!.controllerRevisions['chart']!['viewport']!;

    const range = { startTime: 1_735_700_000, endTime: 1_735_710_000 };
    const moved = await succeed({
      sessionId,
      target: CHART,
      controlId: 'chart.setVisibleRange',
      args: [range],
      expectedRevisions: { viewport },
    });
    expect(moved.revisionsAfter).toEqual({ viewport: viewport + 1 });
    expect((await succeed({ sessionId, target: CHART, controlId: 'chart.getVisibleRange' })).result).toEqual(range);

    // Trade-class: refused while the tab grants write, runs once the person grants trade.
    const listed = await callTool<ListControlsData>(client, 'tradescript_list_controls', {
      sessionId,
      target: SESSION,
    });
    expect(listed.envelope.data!.unavailableControls).toContainEqual(
      expect.objectContaining({ control: 'orders.placeOrder', reason: 'attachment-grant' }),
    );
    await page.locator('tradescript-bridge label[for=grant-trade]').click();
    const watched = await callTool<{ subscriptionId: string }>(client, 'tradescript_subscribe', {
      action: 'start',
      sessionId,
      target: SESSION,
      bindings: [{ channelId: 'orders.placed', bindingId: 'btc', options: { symbol: 'BTCUSDT' } }],
    });
    expect(watched.isError, JSON.stringify(watched.envelope.error)).toBe(false);
    const ordersContext = await callTool<ContextData>(client, 'tradescript_get_context', {
      sessionId,
      target: SESSION,
    });
    const placement = { clientOrderId: 'G1', symbol: 'BTCUSDT', side: 'buy', quantity: '0.01', limitPrice: '60000' };
    const placed = await succeed({
      sessionId,
      target: SESSION,
      controlId: 'orders.placeOrder',
      args: [placement],
      expectedRevisions: { orders: ordersContext.envelope.data!.controllerRevisions['orders']!['orders'] },
      context: { operationId: 'guide-place-1' },
    });
    expect(placed).toMatchObject({ operationId: 'guide-place-1', result: { orderId: 'o-1', ...placement } });
    const polled = await callTool<{ events: Array<{ payload: unknown }> }>(client, 'tradescript_subscribe', {
      action: 'poll',
      subscriptionId: watched.envelope.data!.subscriptionId,
    });
    expect(polled.isError, JSON.stringify(polled.envelope.error)).toBe(false);
    expect(polled.envelope.data!.events.map((e) => e.payload)).toEqual([{ orderId: 'o-1', ...placement }]);

    for (const target of [CHART, BLOTTER]) {
      const shot = await callTool<SnapshotData>(client, 'tradescript_snapshot', { sessionId, target });
      expect(shot.isError, JSON.stringify(shot.envelope.error)).toBe(false);
      expect(shot.envelope.data).toMatchObject({ mimeType: 'image/png' });
    }
    await page.locator('tradescript-bridge label[for=grant-write]').click();
    await page.close();
  });

  it('SPEC §10 the static page from the copied files pairs and serves its control', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${staticSite.origin}/guide/index.html#pair=${await pairCode()}`);
    await expect.poll(() => page.locator('tradescript-bridge [data-testid=state]').innerText()).toBe('Paired');
    const { sessionId } = await sessionTitled('My static terminal');
    expect(
      await succeed({ sessionId, target: SESSION, controlId: 'notes.add', args: ['from the guide'] }),
    ).toMatchObject({ result: { count: 1 } });
    expect(notFound(staticSite)).toEqual([]);
    await page.close();
  });

  it('SPEC §10 the extension page: the extension (paired above) links it once its site is allowed', async () => {
    const extensionDir = join(project.packageDir, 'dist/extension');
    const popup = await PopupDriver.open(browser.context, extensionIdOf(extensionDir));
    await expect.poll(() => popup.relayState()).toBe('paired');
    await popup.allowSite(viteSite.origin);
    const page = await browser.context.newPage();
    await page.goto(`${viteSite.origin}/embedding/extension.html`);
    const linked = await sessionTitled('My terminal (extension)');
    expect(linked).toMatchObject({ hostKind: 'extension', origin: viteSite.origin });
    const read = await succeed({ sessionId: linked.sessionId, target: CHART, controlId: 'chart.getVisibleRange' });
    expect(read.result).toEqual({ startTime: 1_735_689_600, endTime: 1_735_776_000 });
    await page.close();
  });
});

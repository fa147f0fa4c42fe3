/**
 * Clients that vanish mid-call, as users' clients do (SPEC §2, §5, §9): a
 * third-party MCP client in its own process (e2e/harness/fixtures/vanishingClient.mjs)
 * is killed with SIGKILL while its call waits at the paper broker, over
 * HTTP 2025-11-25 (a session that never sends DELETE), HTTP 2026-07-28
 * (stateless) and stdio (its server's stdin simply ends). Against the real
 * CLI (`demo --enable-trading --grant trade`) and the demo in Chromium:
 * - a mutation already dispatched runs to its outcome exactly once, and a
 *   restarted client's faithful retry (a new attachment: same operation id,
 *   same client order id) places nothing;
 * - a read's late answer reaches nobody else: another client's call made
 *   meanwhile gets its own answer;
 * - the server keeps serving, the tab stays paired with its session, and the
 *   vanished client's attachment ends (the stdio server exits; an HTTP one
 *   ends after `attachmentIdleMs`), so nothing grows.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallReceipt, ContextData } from '../src/protocol/index.js';
import {
  callTool,
  connectHttpClient,
  isAlive,
  killTree,
  launchBrowser,
  newPage,
  pairPage,
  repoRoot,
  serverBin,
  startServer,
  track,
  type ServerHandle,
} from './harness/index.js';

/** What the test reads and does through `window.__tradescriptDemo`. */
interface DemoWindow {
  __tradescriptDemo: {
    host: { grant: string };
    bridgeStatus(): { state: string; sessionId: string | null; attachments: Array<{ clientName: string }> };
    broker: {
      orders(accountId?: string): Array<{ clientOrderId: string; status: string }>;
      faults: { add(spec: { kind: string; scope?: string; ms?: number }): unknown; clear(): void };
    };
  };
}

type Mode = 'http-2025' | 'http-2026' | 'stdio';

const SESSION = { scope: 'session' } as const;
const CLIENT = join(repoRoot, 'e2e/harness/fixtures/vanishingClient.mjs');
/** Short enough for the test to see a vanished HTTP client's attachment end. */
const IDLE_MS = 4_000;
const home = mkdtempSync(join(tmpdir(), 'tradescript-vanishing-'));
let server: ServerHandle;
let browser: Browser;
let page: Page;
let client: Client;
let sessionId: string;
let orderCount = 0;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The hub's attachment count, from `tradescript-mcp status --json`. */
function attachments(): number {
  const out = spawnSync(process.execPath, [serverBin, 'status', '--json', '--home', home], { encoding: 'utf8' });
  return (JSON.parse(out.stdout) as { hub: { attachments: number } }).hub.attachments;
}

/** Polls until `check` holds (every 250 ms, up to `ms`); returns whether it did. */
async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await check()) return true;
    await pause(250);
  }
  return check();
}

const ordersWith = (clientOrderId: string) =>
  page.evaluate(
    (id) =>
      (window as unknown as DemoWindow).__tradescriptDemo.broker.orders().filter((o) => o.clientOrderId === id).length,
    clientOrderId,
  );
const addLatency = (scope: string, ms: number) =>
  page.evaluate((spec) => void (window as unknown as DemoWindow).__tradescriptDemo.broker.faults.add(spec), {
    kind: 'latency',
    scope,
    ms,
  });
const clearFaults = () =>
  page.evaluate(() => (window as unknown as DemoWindow).__tradescriptDemo.broker.faults.clear());
const pairedStatus = () => page.evaluate(() => (window as unknown as DemoWindow).__tradescriptDemo.bridgeStatus());

/** A third-party client in its own process, connected; `call` sends its one tool call. */
interface Vanishing {
  child: ChildProcess;
  /** The stdio client's server process (its child), if any. */
  serverPid: number | null;
  call(name: string, args: Record<string, unknown>): Promise<void>;
  /** Whether it printed an answer (it must not have, before it is killed). */
  answered(): boolean;
  /** Its stderr (over stdio, its server's too). */
  log(): string;
  kill(): void;
}

async function spawnVanishing(mode: Mode): Promise<Vanishing> {
  const where = mode === 'stdio' ? [serverBin, 'serve', '--stdio', '--enable-trading'] : [server.ready.mcpUrl ?? ''];
  const child = spawn(process.execPath, [CLIENT, mode, ...where], {
    cwd: repoRoot,
    env: { ...process.env, TRADESCRIPT_MCP_HOME: home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  let serverPid: number | null = null;
  const kill = () => {
    if (child.pid !== undefined && isAlive(child.pid)) child.kill('SIGKILL');
  };
  // Whatever a failing test leaves, the file's end kills: the client, and a stdio server that outlived it.
  track(async () => {
    kill();
    if (serverPid !== null && isAlive(serverPid)) killTree(serverPid);
  });
  const line = async (word: string) => {
    if (!(await until(() => out.includes(`${word}\n`) || child.exitCode !== null, 30_000)) || !out.includes(word)) {
      throw new Error(`vanishingClient ${mode}: no "${word}" (exit ${child.exitCode})\n${out}\n${err.slice(-3000)}`);
    }
  };
  await line('connected');
  serverPid = mode === 'stdio' ? Number(/^server (\d+)$/m.exec(out)?.[1]) : null;
  return {
    child,
    serverPid,
    call: async (name, args) => {
      child.stdin.write(`${JSON.stringify({ name, arguments: args })}\n`);
      await line('calling');
    },
    answered: () => out.includes('answered'),
    log: () => err,
    kill,
  };
}

/** A preview of a far-from-market limit buy and the placement arguments for it (through the test's own client). */
async function placement(label: string, operationId: string) {
  orderCount += 1;
  const clientOrderId = `${label}${orderCount}`.replace(/[^A-Za-z0-9]/g, '').slice(0, 20);
  const request = {
    accountId: 'PAPER-001',
    symbol: 'BTCUSDT',
    side: 'buy',
    type: 'limit',
    quantity: '0.01',
    limitPrice: '45000.00',
    clientOrderId,
  };
  const preview = await callTool<CallReceipt>(client, 'tradescript_call', {
    sessionId,
    target: SESSION,
    controlId: 'orders.previewOrder',
    args: [request],
  });
  expect(preview.envelope.error).toBeNull();
  const { placementArguments } = preview.envelope.data!.result as { placementArguments: unknown };
  const context = await callTool<ContextData>(client, 'tradescript_get_context', { sessionId, target: SESSION });
  const orders = context.envelope.data!.controllerRevisions['orders']!['orders']!;
  return {
    clientOrderId,
    args: {
      sessionId,
      target: SESSION,
      controlId: 'orders.placeOrder',
      args: [placementArguments],
      expectedRevisions: { orders },
      context: { operationId },
    },
  };
}

/** Whether the page lists an attachment of the vanishing client of `mode` (its name is `vanishing-<mode>`). */
async function pageLists(mode: Mode): Promise<boolean> {
  const status = await pairedStatus();
  return status.attachments.some((a) => a.clientName === `vanishing-${mode}`);
}

/** The vanished client's attachment has ended: a stdio server has exited, an HTTP attachment idled out. */
async function attachmentEnds(mode: Mode, vanished: Vanishing, before: number): Promise<void> {
  if (vanished.serverPid !== null) {
    const pid = vanished.serverPid;
    expect(await until(() => !isAlive(pid), 15_000), 'the stdio server exits when its client is gone').toBe(true);
    // It detached and stopped in order: no crash, no stack trace.
    expect(vanished.log()).toMatch(/INFO tradescript:mcp detached[\s\S]*INFO tradescript stopped/);
    expect(vanished.log()).not.toMatch(/ ERROR |Uncaught|\n\s+at /);
  }
  expect(await until(async () => !(await pageLists(mode)), IDLE_MS + 20_000), 'the page stops listing it').toBe(true);
  expect(await until(() => attachments() === before, 5_000), 'the hub counts what it counted before').toBe(true);
}

beforeAll(async () => {
  server = await startServer(
    ['demo', '--enable-trading', '--grant', 'trade', '--limit', `attachmentIdleMs=${IDLE_MS}`],
    { home },
  );
  browser = await launchBrowser();
  page = (await newPage(browser)).page;
  sessionId = await pairPage(page, server.ready.pairUrl!);
  expect(await page.evaluate(() => (window as unknown as DemoWindow).__tradescriptDemo.host.grant)).toBe('trade');
  client = await connectHttpClient(server.ready.mcpUrl!);
});

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await server?.close();
  rmSync(home, { recursive: true, force: true });
});

describe.each<Mode>(['http-2025', 'http-2026', 'stdio'])('a %s client killed mid-call (SPEC §2, §5, §9)', (mode) => {
  it('SPEC §5 its order in flight is placed exactly once; a restarted client retrying the same ids places nothing; its attachment ends', async () => {
    const before = attachments();
    const { clientOrderId, args } = await placement(`VAN${mode}`, `vanish-${mode}-1`);
    const vanishing = await spawnVanishing(mode);
    await addLatency('orders.placeOrder', 2_500);
    try {
      await vanishing.call('tradescript_call', args);
      // The call reaches the page and waits at the broker; then its client is gone without a word.
      await pause(800);
      expect(await pageLists(mode), 'the page lists the calling client').toBe(true);
      expect(await ordersWith(clientOrderId)).toBe(0);
      vanishing.kill();
      expect(vanishing.answered()).toBe(false);
      // The page was never told to stop a dispatched mutation: it runs to its outcome, once.
      expect(await until(async () => (await ordersWith(clientOrderId)) === 1, 15_000)).toBe(true);
    } finally {
      await clearFaults();
    }
    await pause(1_000);
    expect(await ordersWith(clientOrderId)).toBe(1);

    // The client restarts (a new attachment, so a new operation namespace) and retries as it was: nothing is placed.
    const retry = await callTool<CallReceipt>(client, 'tradescript_call', args);
    expect(retry.isError).toBe(true);
    expect(retry.envelope.error?.code).toBe('revision_conflict');
    // Even with the revisions read again, the broker-level client order id stops it (SPEC §2, §5).
    const context = await callTool<ContextData>(client, 'tradescript_get_context', { sessionId, target: SESSION });
    const fresh = {
      ...args,
      expectedRevisions: { orders: context.envelope.data!.controllerRevisions['orders']!['orders']! },
    };
    const again = await callTool<CallReceipt>(client, 'tradescript_call', fresh);
    expect(again.envelope.error?.code).toBe('broker_rejection');
    expect(again.envelope.error?.message).toMatch(/client order id was already used/);
    expect(await ordersWith(clientOrderId)).toBe(1);

    expect(await pairedStatus()).toMatchObject({ state: 'paired', sessionId });
    await attachmentEnds(mode, vanishing, before);
  });

  it('SPEC §9 its read in flight answers nobody else: a call made meanwhile gets its own answer, and the server keeps serving', async () => {
    const before = attachments();
    const vanishing = await spawnVanishing(mode);
    await addLatency('orders.list', 2_000);
    try {
      await vanishing.call('tradescript_call', {
        sessionId,
        target: SESSION,
        controlId: 'orders.list',
        requestId: `vanishing-read-${mode}`,
      });
      await pause(500);
      expect(await pageLists(mode), 'the page lists the calling client').toBe(true);
      vanishing.kill();
      // Another client's call while the vanished read still waits at the broker: its own answer, its own id.
      const other = await callTool<CallReceipt>(client, 'tradescript_call', {
        sessionId,
        target: SESSION,
        controlId: 'orders.list',
        requestId: `meanwhile-${mode}`,
      });
      expect(other.envelope.error).toBeNull();
      expect(other.envelope.meta).toMatchObject({ sessionId, requestId: `meanwhile-${mode}` });
      expect(other.envelope.data).toMatchObject({ controlId: 'orders.list' });
    } finally {
      await clearFaults();
    }
    const after = await callTool<CallReceipt>(client, 'tradescript_call', {
      sessionId,
      target: SESSION,
      controlId: 'orders.list',
      requestId: `after-${mode}`,
    });
    expect(after.envelope.error).toBeNull();
    expect(after.envelope.meta.requestId).toBe(`after-${mode}`);
    expect(await pairedStatus()).toMatchObject({ state: 'paired', sessionId });
    await attachmentEnds(mode, vanishing, before);
  });
});

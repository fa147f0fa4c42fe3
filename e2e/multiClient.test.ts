/**
 * Many clients, one terminal (SPEC §2, §9): several `tradescript-mcp`
 * processes share one TRADESCRIPT_MCP_HOME. The first (`demo --stdio`) owns
 * the relay; a second stdio process and an HTTP process join it as fronts.
 * Each MCP client has its own attachment namespace on the same paired tab, and
 * when the hub's process is killed the others take over without re-pairing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SESSIONS_URI,
  type BatchData,
  type CallReceipt,
  type ContextData,
  type SessionsDocument,
} from '../src/protocol/index.js';
import {
  callTool,
  connectHttpClient,
  connectStdioClient,
  launchBrowser,
  newPage,
  pairPage,
  startServer,
  type ServerHandle,
  type StdioClientHandle,
} from './harness/index.js';
import { MAIN_CHART } from './harness/terminal.js';

interface DemoHooks {
  __tradescriptDemo: {
    charts: Record<string, { tradingLines(): Array<{ lineId: string; label: string }> }>;
    bridgeStatus(): { state: string; sessionId: string | null; attachments: unknown[] };
  };
}

const home = mkdtempSync(join(tmpdir(), 'tradescript-multi-'));
let first: StdioClientHandle;
let second: StdioClientHandle;
let httpServer: ServerHandle;
let httpClient: Client;
let page: Page;
let sessionId: string;
const mine = new Map<Client, { args: Record<string, unknown>; receipt: CallReceipt }>();

beforeAll(async () => {
  first = await connectStdioClient(['demo', '--stdio'], { home });
  second = await connectStdioClient(['serve', '--stdio'], { home });
  httpServer = await startServer(['serve', '--http', '127.0.0.1:0'], { home });
  httpClient = await connectHttpClient(httpServer.ready.mcpUrl!);
  const browser = await launchBrowser();
  page = (await newPage(browser)).page;
  sessionId = await pairPage(page, first.ready.pairUrl!);
});

afterAll(async () => {
  await Promise.all([first?.close(), second?.close(), httpServer?.close()]);
  rmSync(home, { recursive: true, force: true });
});

async function sessions(client: Client): Promise<SessionsDocument> {
  const read = await client.readResource({ uri: SESSIONS_URI });
  return JSON.parse((read.contents[0] as { text: string }).text) as SessionsDocument;
}

async function tradingLinesRevision(client: Client): Promise<number> {
  const context = await callTool<ContextData>(client, 'tradescript_get_context', { sessionId, target: MAIN_CHART });
  return context.envelope.data!.controllerRevisions['chart']!['tradingLines']!;
}

function lineCall(label: string, price: string, revision: number) {
  return {
    target: MAIN_CHART,
    controlId: 'chart.createTradingLine',
    args: [{ kind: 'alert', price, label }],
    expectedRevisions: { tradingLines: revision },
    context: { operationId: 'shared-line' },
  };
}

const readCall = (operationId: string) => ({
  target: MAIN_CHART,
  controlId: 'chart.getVisibleRange',
  args: [],
  context: { operationId },
});

/** One client's batch of reads and a line, all under operation ids the other client uses too. */
async function batchWithLine(client: Client, label: string, price: string, revision: number) {
  const call = lineCall(label, price, revision);
  const batch = await callTool<BatchData>(client, 'tradescript_batch', {
    sessionId,
    stopOnError: false,
    calls: [readCall('shared-read-1'), call, readCall('shared-read-2')],
  });
  return { call, outcomes: batch.envelope.data!.outcomes };
}

/** Creates this client's line, re-reading after a revision conflict (refused before dispatch: same id, runs afresh). */
async function ownLine(client: Client, label: string, price: string, first: Awaited<ReturnType<typeof batchWithLine>>) {
  let { call } = first;
  let outcome = first.outcomes[1]!;
  if (outcome.status === 'rejected') {
    expect(outcome.error.code).toBe('revision_conflict');
    call = lineCall(label, price, await tradingLinesRevision(client));
    const retry = await callTool<CallReceipt>(client, 'tradescript_call', { sessionId, ...call });
    expect(retry.isError).toBe(false);
    outcome = { index: 1, status: 'fulfilled', receipt: retry.envelope.data! };
  }
  if (outcome.status !== 'fulfilled') throw new Error(`unexpected outcome ${outcome.status}`);
  mine.set(client, { args: call, receipt: outcome.receipt });
}

function linesOnPage(): Promise<Array<{ lineId: string; label: string }>> {
  return page.evaluate(() => (window as unknown as DemoHooks).__tradescriptDemo.charts['btc-main']!.tradingLines());
}

async function untilListed(client: Client, id: string): Promise<SessionsDocument> {
  for (;;) {
    const doc = await sessions(client);
    if (doc.sessions.some((s) => s.sessionId === id && s.connected)) return doc;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('many clients, one terminal', () => {
  it('SPEC §2 two stdio clients on one tab, the same operationId in both: each gets exactly its own outcomes', async () => {
    const revision = await tradingLinesRevision(first.client);
    const [a, b, aReads, bReads] = await Promise.all([
      batchWithLine(first.client, 'from-first', '61000.5', revision),
      batchWithLine(second.client, 'from-second', '62000.5', revision),
      callTool<BatchData>(first.client, 'tradescript_batch', { sessionId, calls: [readCall('shared-read-3')] }),
      callTool<BatchData>(second.client, 'tradescript_batch', { sessionId, calls: [readCall('shared-read-3')] }),
    ]);
    for (const outcome of [a.outcomes[0], a.outcomes[2], b.outcomes[0], b.outcomes[2]])
      expect(outcome?.status).toBe('fulfilled');
    expect([aReads.isError, bReads.isError]).toEqual([false, false]);
    await ownLine(first.client, 'from-first', '61000.5', a);
    await ownLine(second.client, 'from-second', '62000.5', b);

    const labels = (await linesOnPage()).map((l) => l.label);
    expect(labels.filter((l) => l === 'from-first')).toHaveLength(1);
    expect(labels.filter((l) => l === 'from-second')).toHaveLength(1);
    const firstReceipt = mine.get(first.client)!.receipt;
    const secondReceipt = mine.get(second.client)!.receipt;
    expect([firstReceipt.operationId, secondReceipt.operationId]).toEqual(['shared-line', 'shared-line']);
    expect(firstReceipt.result).not.toEqual(secondReceipt.result);

    for (const client of [first.client, second.client]) {
      const { args, receipt } = mine.get(client)!;
      const again = await callTool<CallReceipt>(client, 'tradescript_call', { sessionId, ...args });
      expect(again.isError).toBe(false);
      expect(again.envelope.data!.result).toEqual(receipt.result);
      expect(again.envelope.data!.revisionsAfter).toEqual(receipt.revisionsAfter);
    }
    expect(await linesOnPage()).toHaveLength(labels.length);
  });

  it('SPEC §2 stdio and HTTP at once: tradescript://sessions and the page list every attachment, across processes', async () => {
    const viaHttp = await untilListed(httpClient, sessionId);
    const viaStdio = await sessions(second.client);
    const attachments = viaHttp.sessions.find((s) => s.sessionId === sessionId)!.attachments;
    expect(attachments.map((a) => a.transport).sort()).toEqual(['http', 'stdio', 'stdio']);
    expect(viaStdio.sessions.find((s) => s.sessionId === sessionId)!.attachments).toEqual(attachments);
    const onPage = await page.evaluate(
      () => (window as unknown as DemoHooks).__tradescriptDemo.bridgeStatus().attachments.length,
    );
    expect(onPage).toBe(3);
    const range = await callTool(httpClient, 'tradescript_call', { sessionId, ...readCall('shared-read-1') });
    expect(range.isError).toBe(false);
  });

  it('SPEC §9 killing the hub process: the tab comes back to the new hub with its session id, and the others keep working', async () => {
    const before = (await sessions(second.client)).sessions.find((s) => s.sessionId === sessionId)!.attachments;
    process.kill(first.pid, 'SIGKILL');
    await first.close();

    const after = await untilListed(second.client, sessionId);
    const kept = after.sessions.find((s) => s.sessionId === sessionId)!.attachments;
    expect(kept.map((a) => a.transport).sort()).toEqual(['http', 'stdio']);
    expect(before.map((a) => a.attachmentId)).toEqual(expect.arrayContaining(kept.map((a) => a.attachmentId)));
    // The hub lists the session on the tab's hello; the tab shows "paired" once the hub's answer reached it.
    const status = () => page.evaluate(() => (window as unknown as DemoHooks).__tradescriptDemo.bridgeStatus());
    await expect.poll(status, { timeout: 10_000 }).toMatchObject({ state: 'paired', sessionId });

    const read = await callTool(second.client, 'tradescript_call', { sessionId, ...readCall('after-takeover') });
    expect(read.isError).toBe(false);
    const { args, receipt } = mine.get(second.client)!;
    const again = await callTool<CallReceipt>(second.client, 'tradescript_call', { sessionId, ...args });
    expect(again.envelope.data!.result).toEqual(receipt.result);
    const overHttp = await callTool(httpClient, 'tradescript_call', { sessionId, ...readCall('after-takeover') });
    expect(overHttp.isError).toBe(false);
  });
});

/**
 * Relay frame batches, end to end (SPEC §9, issue 15): the real CLI over
 * stdio with a real MCP client, the demo in Chromium. The page's relay
 * WebSocket frames are read from DevTools (Network.webSocketFrameReceived and
 * …Sent): with 8 calls in flight the requests share WebSocket messages, and so
 * do the answers, and every call still gets its own answer; one caller's calls
 * go one frame per message. Nothing here measures time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallReceipt, Target } from '../src/protocol/index.js';
import {
  callTool,
  connectStdioClient,
  launchBrowser,
  newPage,
  pairPage,
  type StdioClientHandle,
} from './harness/index.js';
import { MAIN_CHART } from './harness/terminal.js';

const CALLERS = 8;
const CALLS_PER_CALLER = 25;

const home = mkdtempSync(join(tmpdir(), 'tradescript-batch-'));
let mcp: StdioClientHandle;
let page: Page;
let sessionId: string;
/** WebSocket messages of the page's relay socket, as DevTools saw them: direction and text. */
const messages: Array<{ dir: 'in' | 'out'; text: string }> = [];

/** Records the WebSocket frames of the page (the bridge's relay socket is the page's own, SPEC §1). */
async function watchPageSockets(cdp: CDPSession): Promise<void> {
  cdp.on('Network.webSocketFrameReceived', ({ response }) => messages.push({ dir: 'in', text: response.payloadData }));
  cdp.on('Network.webSocketFrameSent', ({ response }) => messages.push({ dir: 'out', text: response.payloadData }));
  await cdp.send('Network.enable', {});
}

/**
 * How many request frames each recorded inbound message carried (0 for messages without one);
 * with `tag`, only messages carrying it (DevTools may report an earlier call's frame late).
 */
function requestsPerMessage(tag = ''): number[] {
  return messages
    .filter((m) => m.dir === 'in' && m.text.includes(tag))
    .map((m) => {
      const value = JSON.parse(m.text) as { t: string } | Array<{ t: string }>;
      // A request frame, or (call contexts negotiated) one naming its context.
      return (Array.isArray(value) ? value : [value]).filter((f) => f.t === 'request' || f.t === 'request.ref').length;
    })
    .filter((n) => n > 0);
}

const CHARTS = [MAIN_CHART, { scope: 'chart', chartId: 'eth-alt' }] as const;

/**
 * A read of one chart's visible range, tagged with `requestId`. No caller
 * operation id: the server's own skips the page's IndexedDB ledger, as a
 * plain read does, so the page answers within the task that asked.
 */
const read = (requestId: string, target: Target = MAIN_CHART) =>
  callTool<CallReceipt>(mcp.client, 'tradescript_call', {
    sessionId,
    target,
    controlId: 'chart.getVisibleRange',
    args: [],
    requestId,
  });

beforeAll(async () => {
  mcp = await connectStdioClient(['demo', '--stdio'], { home });
  const browser = await launchBrowser();
  page = (await newPage(browser)).page;
  sessionId = await pairPage(page, mcp.ready.pairUrl!);
  await watchPageSockets(await page.context().newCDPSession(page));
  // DevTools reports frames once Network is on in the worker: a call that shows up proves it is.
  for (let i = 0; requestsPerMessage().length === 0; i++) {
    if (i === 50) throw new Error('DevTools reported no WebSocket frame of the page');
    await read(`warm-up-${i}`);
  }
});

afterAll(async () => {
  await mcp?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('SPEC §9 relay batches through the real bridge', () => {
  it('one caller: every request and every answer goes one frame per message', async () => {
    messages.length = 0;
    for (let i = 0; i < 20; i++) {
      const answer = await read(`lone-${i}`);
      expect(answer.envelope.meta.requestId).toBe(`lone-${i}`);
    }
    // DevTools reports frames asynchronously, after the answers they carried may have arrived.
    await expect.poll(() => requestsPerMessage('"lone-').length).toBe(20);
    expect(requestsPerMessage('"lone-')).toEqual(Array(20).fill(1));
    expect(messages.filter((m) => m.dir === 'out' && m.text.startsWith('['))).toEqual([]);
  });

  it('call contexts: the attachment, adapter maximum and limits go once; each call names them', async () => {
    messages.length = 0;
    for (let i = 0; i < 5; i++) expect((await read(`ref-${i}`)).isError).toBe(false);
    await expect.poll(() => requestsPerMessage('"ref-').length).toBe(5);
    // Every frame received since, but a warm-up call's that DevTools reported late.
    const inbound = messages
      .filter((m) => m.dir === 'in' && !m.text.includes('"warm-up-'))
      .flatMap((m) => [JSON.parse(m.text) as Record<string, unknown> | Array<Record<string, unknown>>].flat());
    const refs = inbound.filter((f) => f.t === 'request.ref');
    expect(refs).toHaveLength(5);
    // The warm-up calls already sent this attachment's context: none again, and no full request frame.
    expect(inbound.filter((f) => f.t === 'context' || f.t === 'request')).toEqual([]);
    for (const ref of refs)
      expect(Object.keys(ref).sort()).toEqual(['context', 'deadlineMs', 'id', 'op', 'sessionId', 't']);
    expect(new Set(refs.map((f) => f.context)).size).toBe(1);
  });

  it('8 calls in flight: each gets its own answer, and requests share WebSocket messages', async () => {
    messages.length = 0;
    const callers = Array.from({ length: CALLERS }, async (_, c) => {
      for (let i = 0; i < CALLS_PER_CALLER; i++) {
        const requestId = `caller-${c}-${i}`;
        const target = CHARTS[c % 2]!;
        const answer = await read(requestId, target);
        expect(answer.isError).toBe(false);
        expect(answer.envelope.meta.requestId).toBe(requestId);
        // The receipt is the page's: the chart it read is the one this call asked for.
        expect(answer.envelope.data?.target).toEqual(target);
      }
    });
    await Promise.all(callers);
    const total = () => requestsPerMessage().reduce((a, b) => a + b, 0);
    await expect.poll(total).toBe(CALLERS * CALLS_PER_CALLER);
    const perMessage = requestsPerMessage();
    // How many share depends on timing; that some do does not.
    expect(Math.max(...perMessage)).toBeGreaterThan(1);
    expect(perMessage.length).toBeLessThan(CALLERS * CALLS_PER_CALLER);
    // The page answers them within the task that asked, so answers share messages.
    const answers = messages.filter((m) => m.dir === 'out' && m.text.includes('"t":"response"'));
    expect(answers.some((m) => m.text.startsWith('['))).toBe(true);
  });
});

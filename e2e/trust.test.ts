/**
 * Trust boundaries and resilience of the foundation (issue 2, SPEC §6, §9): the
 * result limit keeps mutation evidence, foreign Origin and Host are refused on
 * /mcp and on the relay, and a dropped relay socket comes back with its session.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLOSE_CODES, type CallReceipt, type ContextData } from '../src/protocol/index.js';
import {
  callTool,
  connectHttpClient,
  launchBrowser,
  newPage,
  pairPage,
  rawInitializeStatus,
  startServer,
  upgradeOutcome,
  upgradeStatus,
} from './harness/index.js';
import { MAIN_CHART, openTerminal } from './harness/terminal.js';

describe('SPEC §6 the result limit', () => {
  it('SPEC §6 a mutation whose result cannot fit keeps its evidence; a read that cannot fit is limit_exceeded', async () => {
    const t = await openTerminal('http', ['--limit', 'resultBytes=420']);
    try {
      const created = await t.call<CallReceipt>('tradescript_call', {
        sessionId: t.sessionId,
        target: MAIN_CHART,
        controlId: 'chart.createTradingLine',
        args: [{ kind: 'alert', price: '60000.5', label: 'a label long enough to overflow' }],
        expectedRevisions: { tradingLines: 0 },
      });
      expect(created.envelope.error).toBeNull();
      expect(created.envelope.data).toMatchObject({
        result: null,
        resultOmitted: { reason: 'result-too-large', limit: 'resultBytes' },
        revisionsBefore: { tradingLines: 0 },
        revisionsAfter: { tradingLines: 1 },
        mutation: true,
        operationId: expect.any(String),
      });
      const lines = await t.page.evaluate(
        () =>
          (
            window as unknown as { __tradescriptDemo: { charts: Record<string, { tradingLines(): unknown[] }> } }
          ).__tradescriptDemo.charts['btc-main']!.tradingLines().length,
      );
      expect(lines).toBe(1);
      const context = await t.call<ContextData>('tradescript_get_context', {
        sessionId: t.sessionId,
        target: MAIN_CHART,
      });
      expect(context.envelope.error).toMatchObject({
        code: 'limit_exceeded',
        details: { limit: 'resultBytes', max: 420 },
      });
    } finally {
      await t.close();
    }
  });
});

describe('SPEC §9 /mcp and the relay refuse foreign Origin and Host', () => {
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  afterAll(async () => server?.close());

  it('SPEC §9 /mcp answers 403 to a foreign Origin or Host, and serves its own', async () => {
    server = await startServer(['demo']);
    const mcpUrl = server.ready.mcpUrl!;
    const port = new URL(mcpUrl).port;
    expect(await rawInitializeStatus(mcpUrl, {})).toBe(200);
    expect(await rawInitializeStatus(mcpUrl, { origin: 'http://evil.example' })).toBe(403);
    expect(await rawInitializeStatus(mcpUrl, { origin: server.ready.demoUrl!.replace(/\/$/, '') })).toBe(403);
    expect(await rawInitializeStatus(mcpUrl, { host: `attacker.example:${port}` })).toBe(403);
    expect(await rawInitializeStatus(mcpUrl, { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` })).toBe(
      200,
    );
  });

  it('SPEC §9 the relay refuses a foreign Origin (closed with 4430 and the flag that admits it, nothing else) or Host (403)', async () => {
    const relayUrl = server!.ready.relayUrl;
    const demoOrigin = new URL(server!.ready.demoUrl!).origin;
    const port = new URL(relayUrl).port;
    expect(await upgradeOutcome(relayUrl, { origin: 'http://evil.example' })).toEqual({
      status: 101,
      close: {
        code: CLOSE_CODES.originNotAllowed,
        reason: 'this origin is not allowed: start the server with --allowed-origin http://evil.example',
      },
      frames: 0,
    });
    expect(await upgradeStatus(relayUrl, {})).toBe(403);
    expect(await upgradeStatus(relayUrl, { origin: demoOrigin, host: `rebind.example:${port}` })).toBe(403);
    expect(await upgradeStatus(relayUrl, { origin: demoOrigin })).toBe(101);
    // Origins are not secrets: the log names the refused one and the flag that admits it.
    expect(server!.logs()).toContain(
      'relay upgrade refused reason="origin" origin="http://evil.example" admit="--allowed-origin http://evil.example"',
    );
  });
});

describe('SPEC §9 a dropped relay socket', () => {
  it('SPEC §9 the tab reconnects with its credential and keeps its session id', async () => {
    // A home of the test's own: it outlives the first server, as a person's ~/.tradescript-mcp does.
    const home = mkdtempSync(join(tmpdir(), 'tradescript-drop-'));
    const first = await startServer(['demo'], { home });
    const browser = await launchBrowser();
    const { page, errors } = await newPage(browser);
    const sessionId = await pairPage(page, first.ready.pairUrl!);
    const mcpPort = new URL(first.ready.mcpUrl!).port;
    const demoPort = new URL(first.ready.demoUrl!).port;
    await first.close();
    // The same home keeps the host's credential; the same ports keep the tab's origin and relay URL.
    const second = await startServer(['demo', '--port', mcpPort, '--demo-port', demoPort], { home });
    try {
      await page.waitForFunction(
        (id) => {
          const status = (
            window as unknown as { __tradescriptDemo: { bridgeStatus(): { state: string; sessionId: string | null } } }
          ).__tradescriptDemo.bridgeStatus();
          return status.state === 'paired' && status.sessionId === id;
        },
        sessionId,
        { timeout: 30_000 },
      );
      const client = await connectHttpClient(second.ready.mcpUrl!);
      const context = await callTool<ContextData>(client, 'tradescript_get_context', {
        sessionId,
        target: { scope: 'session' },
      });
      expect(context.envelope.error).toBeNull();
      expect(context.envelope.meta.sessionId).toBe(sessionId);
      expect(second.logs()).not.toMatch(/pair=|secret/i);
      expect(errors.filter((e) => !/WebSocket/.test(e))).toEqual([]);
      await client.close();
    } finally {
      await second.close();
      await browser.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

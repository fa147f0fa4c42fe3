/**
 * A third-party client (SPEC §3, §11): the MCP Inspector CLI that runs on
 * Node 20, as a child process per step, against `tradescript-mcp demo` with the
 * demo paired in Chromium. Objects (targets, args, revisions, batch calls) are
 * typed on the command line as JSON, which this Inspector parses only where the
 * published schema says `"type": "object"` or `"array"`.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SESSIONS_URI,
  untypedObjectUnions,
  type CallReceipt,
  type ContextData,
  type Envelope,
} from '../src/protocol/index.js';
import { launchBrowser, newPage, pairPage, serverBin, startServer, type ServerHandle } from './harness/index.js';
import { inspect, toolArgs } from './harness/inspectorCli.js';
import { MAIN_CHART } from './harness/terminal.js';

interface ToolResult<T> {
  content: Array<{ type: string; text?: string; mimeType?: string; data?: string }>;
  structuredContent: Envelope<T>;
  isError?: boolean;
}

let server: ServerHandle;
let browser: Browser;
let sessionId: string;

beforeAll(async () => {
  server = await startServer(['demo']);
  browser = await launchBrowser();
  const { page } = await newPage(browser);
  sessionId = await pairPage(page, server.ready.pairUrl!);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** One `tools/call` through the Inspector over Streamable HTTP. */
async function call<T>(name: string, args: Record<string, unknown>): Promise<ToolResult<T>> {
  const run = await inspect([server.ready.mcpUrl!], 'tools/call', toolArgs(name, args));
  return run.json as ToolResult<T>;
}

function ok<T>(result: ToolResult<T>): T {
  expect(result.isError ?? false, JSON.stringify(result.structuredContent.error)).toBe(false);
  return result.structuredContent.data!;
}

describe('SPEC §3 the MCP Inspector CLI (Node 20) drives every tool', () => {
  it('SPEC §3 tools/list: every union of objects in every input schema says "type": "object"', async () => {
    const { json } = await inspect([server.ready.mcpUrl!], 'tools/list');
    const tools = (json as { tools: Array<{ name: string; inputSchema: Record<string, unknown> }> }).tools;
    expect(tools).toHaveLength(6);
    for (const tool of tools) expect(untypedObjectUnions(tool.inputSchema), tool.name).toEqual([]);
  });

  it('SPEC §3 §5 §8 get_context → list_controls → call → batch → snapshot, objects typed as JSON', async () => {
    const sessions = await inspect([server.ready.mcpUrl!], 'resources/read', ['--uri', SESSIONS_URI]);
    const text = (sessions.json as { contents: Array<{ text: string }> }).contents[0]!.text;
    expect(JSON.parse(text)).toMatchObject({ sessions: [expect.objectContaining({ sessionId })] });

    const session = ok(await call<ContextData>('tradescript_get_context', { sessionId, target: { scope: 'session' } }));
    expect(session.availableTargets.map((t) => t.target)).toContainEqual(MAIN_CHART);
    const chart = ok(await call<ContextData>('tradescript_get_context', { sessionId, target: MAIN_CHART }));
    const revisions = chart.controllerRevisions['chart']!;

    const listed = ok(
      await call<{ controls: Array<{ controlId: string }> }>('tradescript_list_controls', {
        sessionId,
        target: MAIN_CHART,
      }),
    );
    expect(listed.controls.map((c) => c.controlId)).toEqual(
      expect.arrayContaining(['chart.getVisibleRange', 'chart.setVisibleRange', 'chart.createTradingLine']),
    );

    const shown = ok(
      await call<CallReceipt>('tradescript_call', {
        sessionId,
        target: MAIN_CHART,
        controlId: 'chart.getVisibleRange',
      }),
    ).result as { startTime: number; endTime: number };
    const span = shown.endTime - shown.startTime;
    const moved = ok(
      await call<CallReceipt>('tradescript_call', {
        sessionId,
        target: MAIN_CHART,
        controlId: 'chart.setVisibleRange',
        args: [{ startTime: shown.startTime - span, endTime: shown.endTime - span }],
        expectedRevisions: { viewport: revisions['viewport'] },
        requestId: 'inspector-1',
        context: { operationId: 'inspector-move-1', origin: 'mcp' },
      }),
    );
    expect(moved).toMatchObject({
      operationId: 'inspector-move-1',
      mutation: true,
      revisionsAfter: { viewport: revisions['viewport']! + 1 },
    });

    const batch = ok(
      await call<{ atomic: false; outcomes: Array<{ status: string }> }>('tradescript_batch', {
        sessionId,
        calls: [
          { target: MAIN_CHART, controlId: 'chart.getVisibleRange' },
          {
            target: MAIN_CHART,
            controlId: 'chart.createTradingLine',
            args: [{ kind: 'alert', price: '50000.5', label: 'inspector' }],
            expectedRevisions: { tradingLines: revisions['tradingLines'] },
          },
        ],
        stopOnError: true,
      }),
    );
    expect(batch.atomic).toBe(false);
    expect(batch.outcomes.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);

    const snapshot = await call<{ mimeType: string; width: number }>('tradescript_snapshot', {
      sessionId,
      target: MAIN_CHART,
      format: 'png',
      maxWidth: 400,
    });
    expect(ok(snapshot)).toMatchObject({ mimeType: 'image/png' });
    expect(snapshot.content).toContainEqual(
      expect.objectContaining({ type: 'image', mimeType: 'image/png', data: expect.any(String) }),
    );
  });

  it('SPEC §11 over stdio too: the Inspector starts `serve --stdio`, which joins the running hub and sees the paired tab', async () => {
    const run = await inspect(
      [process.execPath, serverBin, 'serve', '--stdio', '--port', '0'],
      'tools/call',
      toolArgs('tradescript_get_context', { sessionId, target: MAIN_CHART }),
      { home: server.home },
    );
    const result = run.json as ToolResult<ContextData>;
    expect(ok(result).controllerRevisions['chart']).toBeDefined();
  });
});

/**
 * One paired demo terminal and one MCP client, over either transport: the real
 * CLI, the real relay, the demo in headless Chromium, the SDK's own client.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import {
  callTool,
  connectHttpClient,
  connectStdioClient,
  launchBrowser,
  newPage,
  pairPage,
  startServer,
  type ReadyInfo,
  type ToolCall,
} from './index.js';
import type { Target } from '../../src/protocol/index.js';

/** How the MCP client reaches the server. */
export type Transport = 'http' | 'stdio';

/** A paired terminal and a connected client. */
export interface Terminal {
  transport: Transport;
  client: Client;
  sessionId: string;
  page: Page;
  browser: Browser;
  ready: ReadyInfo;
  /** Page console errors and exceptions so far. */
  pageErrors: string[];
  /** Server stderr without the ready line. */
  logs(): string;
  /** Calls a tool and returns its checked envelope. */
  call<T = unknown>(name: string, args: Record<string, unknown>): Promise<ToolCall<T>>;
  close(): Promise<void>;
}

/** The demo's main chart. */
export const MAIN_CHART: Target = { scope: 'chart', chartId: 'btc-main' };
/** The demo's read-only watchlist widget. */
export const WATCHLIST: Target = { scope: 'widget', widgetId: 'watchlist' };

/**
 * Starts `tradescript-mcp demo` (HTTP) or `demo --stdio`, pairs a Chromium tab
 * through the printed link and connects an MCP client.
 */
export async function openTerminal(transport: Transport, extraArgs: string[] = []): Promise<Terminal> {
  const browser = await launchBrowser();
  const { page, errors } = await newPage(browser);
  let client: Client;
  let ready: ReadyInfo;
  let logs: () => string;
  let closeServer: () => Promise<void>;
  if (transport === 'http') {
    const server = await startServer(['demo', ...extraArgs]);
    ready = server.ready;
    client = await connectHttpClient(requireUrl(ready.mcpUrl, 'mcpUrl'));
    logs = server.logs;
    closeServer = server.close;
  } else {
    const handle = await connectStdioClient(['demo', '--stdio', ...extraArgs]);
    ({ client, ready } = handle);
    logs = handle.logs;
    closeServer = handle.close;
  }
  const sessionId = await pairPage(page, requireUrl(ready.pairUrl, 'pairUrl'));
  return {
    transport,
    client,
    sessionId,
    page,
    browser,
    ready,
    pageErrors: errors,
    logs,
    call: (name, args) => callTool(client, name, args),
    close: async () => {
      await client.close().catch(() => {});
      await closeServer();
      await browser.close();
    },
  };
}

function requireUrl(url: string | undefined, name: string): string {
  if (!url) throw new Error(`the ready line has no ${name}`);
  return url;
}

/** Reads what the demo's chart shows, through its test hook. */
export async function shownRange(page: Page, chartId = 'btc-main'): Promise<{ startTime: number; endTime: number }> {
  return page.evaluate((id) => {
    const hooks = (
      window as unknown as {
        __tradescriptDemo: { charts: Record<string, { visibleRange(): { startTime: number; endTime: number } }> };
      }
    ).__tradescriptDemo;
    const range = hooks.charts[id]!.visibleRange();
    return { startTime: range.startTime, endTime: range.endTime };
  }, chartId);
}

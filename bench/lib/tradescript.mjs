/**
 * TradeScript itself as the bench drives it: the real CLI (`demo --stdio` or
 * `demo`), the demo terminal in a Chromium tab paired through its link, and the
 * SDK's own `Client` (HTTP through the harness's per-request-signal fetch).
 */
import { dirname, resolve } from 'node:path';

/** The demo's main chart, and the trivial read the call table times. */
export const MAIN_CHART = { scope: 'chart', chartId: 'btc-main' };
export const READ_CALL = { target: MAIN_CHART, controlId: 'chart.getVisibleRange' };

/**
 * The CLI the bench runs: `dist/node/server/bin.js` of this checkout, or
 * `TRADESCRIPT_BENCH_BIN` (another build's bin, which serves that build's
 * demo), to compare a change before and after in one environment.
 * @param {any} h the harness
 */
export function serverBin(h) {
  return process.env.TRADESCRIPT_BENCH_BIN || h.serverBin;
}

/** The harness's launch options for {@link serverBin}. */
export function launchOptions() {
  const bin = process.env.TRADESCRIPT_BENCH_BIN;
  return bin ? { bin } : {};
}

/**
 * A second build measured side by side with the first in the same run
 * (`TRADESCRIPT_BENCH_BASELINE_BIN`, e.g. main's build before a change), or
 * null. Its rows and checks are labelled `before:` and not counted.
 */
export function baselineBin() {
  return process.env.TRADESCRIPT_BENCH_BASELINE_BIN || null;
}

/** The checkout whose build the bench measures (for the bundle sizes). */
export function measuredRoot(h) {
  const bin = process.env.TRADESCRIPT_BENCH_BIN;
  return bin ? resolve(dirname(bin), '../../..') : h.repoRoot;
}

/** Bounds every MCP request of the bench (the SDK's default would be 60 s). */
export const REQUEST_OPTIONS = { timeout: 30_000 };

/**
 * @typedef {object} Terminal
 * @property {import('@modelcontextprotocol/client').Client} client
 * @property {string} sessionId
 * @property {import('playwright-core').Page} page
 * @property {number} serverPid
 * @property {Record<string, unknown>} ready the ready line
 * @property {string[]} tools the names tools/list shows
 * @property {(match: RegExp | string, timeoutMs?: number) => Promise<string>} waitForStderr
 *   waits for a line of the server's stderr
 * @property {(name: string, args: Record<string, unknown>) => Promise<any>} callTool the raw result
 * @property {() => Promise<void>} close
 */

/**
 * @param {any} h the harness
 * @param {import('playwright-core').Browser} browser
 * @param {'stdio' | 'http'} transport
 * @param {{ args?: string[], prefixArgs?: string[], viewport?: { width: number, height: number }, query?: string, bin?: string, era?: 'modern', prepare?: (page: import('playwright-core').Page) => Promise<void>, pair?: (page: import('playwright-core').Page, ready: Record<string, any>) => Promise<string> }} [opts]
 *   `prefixArgs` go before the CLI's own (for a `bin` that wraps the CLI: its arguments, then the CLI's path); `query` is added to the demo's address (e.g. `diagnostics=1`); `bin` runs another build's CLI; `era: 'modern'`
 *   speaks 2026-07-28 (over HTTP stateless: each call passes back the attachment handle of the one before);
 *   `prepare` runs on the new tab before the demo loads (e.g. an init script or a fixed clock);
 *   `pair` pairs the new tab with another page than the demo (given the ready line, it answers the session id)
 * @returns {Promise<Terminal>}
 */
export async function openTerminal(h, browser, transport, opts = {}) {
  const extra = opts.args ?? [];
  const launch = opts.bin ? { bin: opts.bin } : launchOptions();
  let client;
  let ready;
  let serverPid;
  let closeServer;
  let waitForStderr;
  if (transport === 'stdio') {
    const args = [...(opts.prefixArgs ?? []), 'demo', '--stdio', ...extra];
    const handle = await h.connectStdioClient(args, { ...launch, era: opts.era });
    ({ client, ready } = handle);
    serverPid = handle.pid;
    closeServer = handle.close;
    waitForStderr = handle.waitForStderr;
  } else {
    const server = await h.startServer([...(opts.prefixArgs ?? []), 'demo', ...extra], launch);
    ready = server.ready;
    waitForStderr = server.waitForStderr;
    serverPid = server.pid;
    closeServer = server.close;
    client = await h.connectHttpClient(ready.mcpUrl, { era: opts.era });
  }
  const statelessHttp = transport === 'http' && opts.era === 'modern';
  const tab = await h.newPage(browser);
  if (opts.viewport) await tab.page.setViewportSize(opts.viewport);
  if (opts.prepare) await opts.prepare(tab.page);
  const close = async () => {
    await client.close().catch(() => {});
    await closeServer();
    await tab.close().catch(() => {});
  };
  try {
    const sessionId = opts.pair
      ? await opts.pair(tab.page, ready)
      : await h.pairPage(tab.page, withQuery(ready.pairUrl, opts.query));
    // Real clients list tools first; the SDK client then validates structuredContent against outputSchema.
    const { tools } = await client.listTools();
    return {
      client,
      sessionId,
      page: tab.page,
      serverPid,
      ready,
      tools: tools.map((t) => t.name),
      waitForStderr,
      callTool: statelessHttp
        ? threadHandle(client)
        : (name, args) => client.callTool({ name, arguments: args }, REQUEST_OPTIONS),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * A stateless client's `callTool`: passes back `meta.attachment` of the last
 * result as `attachment`, as a model does (docs/protocolRevisions.md).
 */
function threadHandle(client) {
  let handle;
  return async (name, args) => {
    const result = await client.callTool(
      { name, arguments: handle === undefined ? args : { ...args, attachment: handle } },
      REQUEST_OPTIONS,
    );
    handle = result.structuredContent?.meta?.attachment ?? handle;
    return result;
  };
}

/** `url` with `query` added before its fragment (the pairing code stays in the fragment). */
function withQuery(url, query) {
  if (!query) return url;
  const u = new URL(url);
  u.search = u.search ? `${u.search}&${query}` : `?${query}`;
  return u.href;
}

/**
 * A round trip of one `tradescript_call` of the trivial read (or of `call`:
 * target, controlId and args); false when the envelope is an error.
 */
export function readCall(terminal, call = READ_CALL) {
  const args = { sessionId: terminal.sessionId, ...call };
  return async () => (await terminal.callTool('tradescript_call', args)).isError !== true;
}

/**
 * Pairs `page` with the vendor fixture terminal (e2e/fixtures/cluster/page/,
 * served at `pageUrl`) through `relayUrl` with the pairing `code` (and the
 * relay's bearer `token`, if any); answers its session id.
 * @param {import('playwright-core').Page} page
 * @param {{ pageUrl: string, relayUrl: string, code: string, token?: string }} opts
 */
export async function pairVendorPage(page, { pageUrl, relayUrl, code, token }) {
  const query = `?relay=${encodeURIComponent(relayUrl)}${token ? `&token=${token}` : ''}&tab=bench`;
  await page.goto(`${pageUrl}${query}#pair=${code}`);
  await page.waitForFunction(() => window.clusterTest?.status()?.state === 'paired', undefined, { timeout: 20_000 });
  return page.evaluate(() => window.clusterTest.status().sessionId);
}

/** After a paused demo's market resumes: its first tick (which moves the market over the pause) and one more, drawn. */
export const MARKET_SETTLE_MS = 1_200;

/**
 * Pauses (`ticking` false) or resumes the demo terminal's market on `page`,
 * through the demo's `market` hook (demo/src/testHooks.ts); resuming waits
 * {@link MARKET_SETTLE_MS}. A build from before that hook (a baseline's demo)
 * is driven through its broker's market: the same `stop()` and `start(500)`.
 * @param {import('playwright-core').Page} page
 * @param {boolean} ticking
 */
export async function setDemoMarket(page, ticking) {
  await page.evaluate((on) => {
    const demo = /** @type {any} */ (window).__tradescriptDemo;
    const market = demo.market ?? {
      pause: () => demo.broker.instance.market.stop(),
      resume: () => demo.broker.instance.market.start(500),
    };
    if (on) market.resume();
    else market.pause();
  }, ticking);
  if (ticking) await new Promise((resolve) => setTimeout(resolve, MARKET_SETTLE_MS));
}

/**
 * THE PEER (SPEC §12): `@mcp-b/webmcp-local-relay` over stdio, with one trivial
 * tool registered by a Chromium page. The page defines the minimal
 * `navigator.modelContext` the relay's embed script reads (`listTools`,
 * `callTool`, `addEventListener('toolschanged')`; see the package README,
 * "Runtime Compatibility"), then loads the package's own `embed.js`, which
 * injects its `widget.html` iframe that opens the WebSocket to the relay.
 * The relay writes `~/.webmcp/`, so it runs with HOME set to a temp dir.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const TOOL = 'bench_ping';
/** The installed package's folder (its exports name only dist/index.js). */
function packageDir() {
  return join(dirname(fileURLToPath(import.meta.resolve('@mcp-b/webmcp-local-relay'))), '..');
}

/** @param {number} relayPort */
function pageHtml(relayPort) {
  return `<!doctype html><meta charset="utf-8"><title>peer page</title><body><script>
const tools = [{ name: '${TOOL}', description: 'Returns pong.', inputSchema: { type: 'object', properties: {} } }];
Object.defineProperty(navigator, 'modelContext', { configurable: true, value: {
  listTools: () => tools,
  callTool: async () => ({ content: [{ type: 'text', text: 'pong' }] }),
  addEventListener() {},
  removeEventListener() {},
} });
</script><script src="/embed.js" data-relay-port="${relayPort}"></script></body>`;
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * @param {{ newPage: Function }} h the harness
 * @param {import('playwright-core').Browser} browser
 */
export async function openPeer(h, browser) {
  const dir = packageDir();
  const files = {
    '/embed.js': ['text/javascript', readFileSync(join(dir, 'dist/browser/embed.js'))],
    '/widget.html': ['text/html; charset=utf-8', readFileSync(join(dir, 'dist/browser/widget.html'))],
    '/widget.js': ['text/javascript', readFileSync(join(dir, 'dist/browser/widget.js'))],
  };
  const relayPort = await freePort();
  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = path === '/' ? ['text/html; charset=utf-8', pageHtml(relayPort)] : files[path];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file[0], 'cache-control': 'no-store' });
    res.end(file[1]);
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (http.address()).port}`;

  const home = mkdtempSync(join(tmpdir(), 'tradescript-bench-peer-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(dir, 'dist/cli.js'), '--port', String(relayPort), '--widget-origin', origin],
    env: { ...process.env, HOME: home },
    stderr: 'pipe',
  });
  const log = [];
  transport.stderr?.on('data', (d) => log.push(String(d)));
  const client = new Client({ name: 'tradescript-bench', version: '0.0.0' });
  const tab = await h.newPage(browser);
  const close = async () => {
    await client.close().catch(() => {});
    await tab.close().catch(() => {});
    await new Promise((resolve) => http.close(resolve));
    rmSync(home, { recursive: true, force: true });
  };
  try {
    await client.connect(transport);
    await tab.page.goto(`${origin}/`);
    await waitForTool(client, TOOL, 20_000);
  } catch (error) {
    await close();
    throw new Error(`peer relay: ${error instanceof Error ? error.message : error}\n${log.join('').slice(-800)}`);
  }
  const request = { name: TOOL, arguments: {} };
  return {
    async call() {
      const result = await client.callTool(request, { timeout: 30_000 });
      return result.isError !== true;
    },
    close,
  };
}

async function waitForTool(client, name, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { tools } = await client.listTools();
    if (tools.some((t) => t.name === name)) return;
    if (Date.now() > deadline)
      throw new Error(
        `the page's tool ${name} was not listed within ${timeoutMs} ms (saw ${tools.map((t) => t.name).join(', ')})`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { makeError } from '../../protocol/index.js';
import type { ServerConfig } from '../config.js';
import { hubFilePath, readHubFile } from '../http/hubFile.js';
import { createLogger } from '../log.js';
import { main } from '../cli/main.js';
import { startServer } from './startServer.js';
import { openTab, streamTransport } from '../testing/testPeers.js';
import { testConfig } from '../testing/testHarness.js';

const config = (home: string): ServerConfig => testConfig({ home, logLevel: 'silent' });
const tempHome = () => mkdtempSync(join(tmpdir(), 'tsmcp-start-'));

/** A server in a fresh home speaking MCP on in-memory stdin and stdout. */
async function startStdio() {
  const home = tempHome();
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const running = await startServer(config(home), {
    mcp: 'stdio',
    bind: { host: '127.0.0.1', port: 0 },
    demo: null,
    stdin,
    stdout,
    logger: createLogger('silent'),
  });
  return { home, stdin, stdout, running };
}

describe('startServer (SPEC §1, §11)', () => {
  it('serves MCP over HTTP, the relay and the demo; a paired tab answers a real MCP client', async () => {
    const home = tempHome();
    const running = await startServer(config(home), {
      mcp: 'http',
      bind: { host: '127.0.0.1', port: 0 },
      demo: { host: '127.0.0.1', port: 0 },
      demoRoot: join(home, 'no-demo'),
      logger: createLogger('silent'),
    });
    await running.mcpReady;
    const { mcpUrl, relayUrl, demoUrl, pairUrl } = running.urls;
    expect(pairUrl?.startsWith(`${demoUrl}#pair=`)).toBe(true);
    expect(statSync(hubFilePath(home)).mode & 0o777).toBe(0o600);
    expect(readHubFile(home)).toMatchObject({ pid: process.pid, relayUrl, mcpUrl, demoUrl });

    const tab = await openTab(relayUrl, new URL(demoUrl ?? '').origin, {
      code: (pairUrl ?? '').split('#pair=')[1] ?? '',
    });
    const client = new Client({ name: 'it', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl ?? '')));
    const sessions = await client.readResource({ uri: 'tradescript://sessions' });
    expect(JSON.stringify(sessions.contents)).toContain(tab.sessionId);

    const call = client.callTool({
      name: 'tradescript_get_context',
      arguments: { sessionId: tab.sessionId, target: { scope: 'session' } },
    });
    const request = await tab.next('request');
    expect(request).toMatchObject({ sessionId: tab.sessionId, op: { kind: 'context', target: { scope: 'session' } } });
    tab.ws.send(
      JSON.stringify({
        t: 'response',
        id: request.id,
        environment: 'paper',
        outcome: { ok: false, error: makeError('target_not_found', 'No such target.') },
      }),
    );
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ data: null, error: { code: 'target_not_found' } });

    await client.close();
    tab.ws.close();
    await running.close();
    await running.closed;
    expect(existsSync(hubFilePath(home))).toBe(false);
  });

  it('speaks MCP over stdio and stops when stdin ends', async () => {
    const { home, stdin, stdout, running } = await startStdio();
    expect(running.urls.mcpUrl).toBeUndefined();
    expect(running.urls.pairUrl).toBeUndefined();
    const client = new Client({ name: 'stdio-it', version: '1' });
    await client.connect(streamTransport(stdin, stdout));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('tradescript_call');
    stdin.end();
    await running.closed;
    expect(existsSync(hubFilePath(home))).toBe(false);
  });

  it('a stdio server nobody spoke to stops when stdin ends, having written nothing to stdout', async () => {
    const { home, stdout, stdin, running } = await startStdio();
    const written: Buffer[] = [];
    stdout.on('data', (chunk: Buffer) => written.push(chunk));
    await running.mcpReady;
    stdin.end();
    await running.closed;
    expect(Buffer.concat(written).toString('utf8')).toBe('');
    expect(existsSync(hubFilePath(home))).toBe(false);
  });
});

describe('startServer loads its hub when first needed (SPEC §12 start → ready, idle footprint)', () => {
  it('a stdio server has loaded no hub until MCP first needs it; that first read is answered by the hub', async () => {
    const home = tempHome();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let loads = 0;
    const running = await startServer(config(home), {
      mcp: 'stdio',
      bind: { host: '127.0.0.1', port: 0 },
      demo: null,
      stdin,
      stdout,
      logger: createLogger('silent'),
      hubMachinery: () => {
        loads++;
        return import('./hubMachinery.js');
      },
    });
    expect(readHubFile(home)).toMatchObject({ pid: process.pid, relayUrl: running.urls.relayUrl });
    expect(loads).toBe(0);
    const client = new Client({ name: 'stdio-first-use', version: '1' });
    await client.connect(streamTransport(stdin, stdout));
    const sessions = await client.readResource({ uri: 'tradescript://sessions' });
    expect(JSON.parse(String((sessions.contents[0] as { text?: string }).text))).toMatchObject({ sessions: [] });
    expect(loads).toBe(1);
    stdin.end();
    await running.closed;
    expect(running.failure()).toBeNull();
  });

  it('a hub that cannot load: the request that waited for it gets 503, the server closes itself and says why', async () => {
    const home = tempHome();
    const running = await startServer(config(home), {
      mcp: 'http',
      bind: { host: '127.0.0.1', port: 0 },
      demo: null,
      logger: createLogger('silent'),
      hubMachinery: () => Promise.reject(new Error('disk gone')),
    });
    await running.mcpReady;
    const answer = await fetch(running.urls.mcpUrl ?? '', { method: 'POST', body: '{}' });
    expect(answer.status).toBe(503);
    await running.closed;
    expect(running.failure()?.message).toBe('the hub could not load: disk gone');
    expect(existsSync(hubFilePath(home))).toBe(false);
  });
});

describe('CLI main (SPEC §11)', () => {
  it('writes one ready line to stderr, nothing to stdout, and stops on request', async () => {
    const home = tempHome();
    const stderr = new PassThrough();
    const stdout = new PassThrough();
    let text = '';
    stderr.on('data', (d: Buffer) => (text += d.toString()));
    let stop: (() => Promise<void>) | null = null;
    const exit = main(['demo', '--port', '0', '--home', home, '--log-level', 'silent'], {
      env: {},
      stdin: new PassThrough(),
      stdout,
      stderr,
      onServing: (s) => (stop = s),
    });
    while (text.split('\n').length < 3) await new Promise((r) => setTimeout(r, 5));
    const [line, people] = text.split('\n');
    expect(line).toMatch(/^tradescript-mcp ready \{/);
    const ready = JSON.parse((line ?? '').slice('tradescript-mcp ready '.length)) as Record<string, string>;
    expect(Object.keys(ready)).toEqual(['mcpUrl', 'relayUrl', 'demoUrl', 'pairUrl', 'tradingEnabled']);
    expect(ready['tradingEnabled']).toBe(false);
    // SPEC §11: one plain line for people after the JSON.
    expect(people).toBe(`Pair a terminal: ${ready.pairUrl}`);
    expect(ready.mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(ready.mcpUrl).not.toContain(':7391/');
    await (stop as unknown as () => Promise<void>)();
    expect(await exit).toBe(0);
    expect(stdout.read()).toBeNull();
  });

  it('exits 2 with a clear message on a bad flag', async () => {
    const stderr = new PassThrough();
    const code = await main(['demo', '--limit', 'batchCalls=99'], {
      env: {},
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr,
    });
    expect(code).toBe(2);
    expect(String(stderr.read())).toMatch(/batchCalls can only be lowered/);
  });

  it('exits 1 when no server is running for pair', async () => {
    const stderr = new PassThrough();
    const code = await main(['pair', '--home', tempHome()], {
      env: {},
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr,
    });
    expect(code).toBe(1);
    expect(String(stderr.read())).toMatch(/No running tradescript-mcp/);
  });
});

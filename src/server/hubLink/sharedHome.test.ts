import { spawnSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { SESSIONS_URI, type SessionsDocument } from '../../protocol/index.js';
import { startServer, type RunningServer } from '../process/startServer.js';
import { openTab, streamTransport } from '../testing/testPeers.js';
import type { ServerConfig } from '../config.js';
import { hubFilePath, readHubFile, writeHubFile } from '../http/hubFile.js';
import { createLogger } from '../log.js';
import { testConfig } from '../testing/testHarness.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
});

const config = (home: string): ServerConfig => testConfig({ home, logLevel: 'silent' });
const tempHome = () => mkdtempSync(join(tmpdir(), 'tsmcp-shared-'));
const logger = createLogger('silent');

async function hubProcess(home: string): Promise<RunningServer> {
  const running = await startServer(config(home), {
    mcp: 'http',
    bind: { host: '127.0.0.1', port: 0 },
    demo: { host: '127.0.0.1', port: 0 },
    demoRoot: join(home, 'no-demo'),
    logger,
  });
  cleanup.push(() => running.close());
  await running.mcpReady;
  return running;
}

async function stdioProcess(home: string): Promise<{ running: RunningServer; client: Client }> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const running = await startServer(config(home), {
    mcp: 'stdio',
    bind: { host: '127.0.0.1', port: 0 },
    demo: null,
    stdin,
    stdout,
    logger,
  });
  cleanup.push(() => running.close());
  const client = new Client({ name: 'stdio-front', version: '1' });
  await client.connect(streamTransport(stdin, stdout));
  cleanup.push(() => client.close());
  return { running, client };
}

async function sessionsOf(client: Client): Promise<SessionsDocument> {
  const read = await client.readResource({ uri: SESSIONS_URI });
  return JSON.parse((read.contents[0] as { text: string }).text) as SessionsDocument;
}

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('several server processes share one hub (SPEC §2, §9)', () => {
  it('a later process joins the hub of hub.json as a front; one session lists both attachments', async () => {
    const home = tempHome();
    const first = await hubProcess(home);
    const file = readHubFile(home);
    expect(file).toMatchObject({ frontUrl: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/front$/) });
    expect(statSync(hubFilePath(home)).mode & 0o777).toBe(0o600);
    const second = await stdioProcess(home);
    expect([first.role(), second.running.role()]).toEqual(['hub', 'front']);
    expect(second.running.urls.relayUrl).toBe(first.urls.relayUrl);

    const { demoUrl, pairUrl } = first.urls;
    const tab = await openTab(first.urls.relayUrl, new URL(demoUrl ?? '').origin, {
      code: (pairUrl ?? '').split('#pair=')[1] ?? '',
    });
    cleanup.push(async () => tab.ws.close());
    const http = new Client({ name: 'http-hub', version: '1' });
    await http.connect(new StreamableHTTPClientTransport(new URL(first.urls.mcpUrl ?? '')));
    cleanup.push(() => http.close());
    await http.listTools();
    await second.client.listTools();

    const seen = await sessionsOf(second.client);
    expect(seen.sessions.map((s) => s.sessionId)).toEqual([tab.sessionId]);
    expect(seen.sessions[0]?.attachments.map((a) => [a.clientName, a.transport]).sort()).toEqual([
      ['http-hub', 'http'],
      ['stdio-front', 'stdio'],
    ]);
    expect((await sessionsOf(http)).sessions[0]?.attachments).toHaveLength(2);

    const call = second.client.callTool({
      name: 'tradescript_get_context',
      arguments: { sessionId: tab.sessionId, target: { scope: 'session' } },
    });
    const request = await tab.next('request');
    expect(request.attachment).toMatchObject({ clientName: 'stdio-front' });
    tab.refuse(request.id);
    expect((await call).structuredContent).toMatchObject({ error: { code: 'target_not_found' } });
  });

  it('when the hub process exits, the front takes over the relay port; the tab keeps its session, the client its namespace', async () => {
    const home = tempHome();
    const first = await hubProcess(home);
    const second = await stdioProcess(home);
    const origin = new URL(first.urls.demoUrl ?? '').origin;
    const tab = await openTab(first.urls.relayUrl, origin, {
      code: (first.urls.pairUrl ?? '').split('#pair=')[1] ?? '',
    });
    await second.client.listTools();
    const before = second.client.callTool({
      name: 'tradescript_get_context',
      arguments: { sessionId: tab.sessionId, target: { scope: 'session' } },
    });
    const firstRequest = await tab.next('request');
    tab.refuse(firstRequest.id);
    await before;
    const oldAdmin = readHubFile(home)?.adminToken;

    await first.close();
    await until(() => second.running.role() === 'hub');
    await until(() => readHubFile(home) !== null);
    expect(readHubFile(home)).toMatchObject({ relayUrl: first.urls.relayUrl });
    expect(readHubFile(home)?.adminToken).not.toBe(oldAdmin);

    const back = await openTab(first.urls.relayUrl, origin, { credential: tab.credential!, sessionId: tab.sessionId });
    cleanup.push(async () => back.ws.close());
    expect(back.sessionId).toBe(tab.sessionId);
    const after = second.client.callTool({
      name: 'tradescript_get_context',
      arguments: { sessionId: tab.sessionId, target: { scope: 'session' } },
    });
    const secondRequest = await back.next('request');
    expect((secondRequest.attachment as { namespace: string }).namespace).toBe(
      (firstRequest.attachment as { namespace: string }).namespace,
    );
    back.refuse(secondRequest.id);
    expect((await after).structuredContent).toMatchObject({ error: { code: 'target_not_found' } });
  });

  it('SPEC §9 /front admits only a loopback process with the link token and no Origin', async () => {
    const home = tempHome();
    await hubProcess(home);
    const file = readHubFile(home)!;
    const url = new URL(file.frontUrl!);
    const upgrade = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest({
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          headers: {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
            'sec-websocket-protocol': 'tradescript.front.v1',
            ...headers,
          },
        });
        req.on('upgrade', (res, socket) => {
          socket.destroy();
          resolve(res.statusCode ?? 0);
        });
        req.on('response', (res) => resolve(res.statusCode ?? 0));
        req.on('error', reject);
        req.end();
      });
    const bearer = { authorization: `Bearer ${file.frontToken}` };
    expect(await upgrade({})).toBe(403);
    expect(await upgrade({ authorization: 'Bearer not-the-link-token-at-all' })).toBe(403);
    expect(await upgrade({ ...bearer, origin: 'http://127.0.0.1:7392' })).toBe(403);
    expect(await upgrade({ ...bearer, host: `evil.example:${url.port}` })).toBe(403);
    expect(await upgrade({ authorization: `Bearer ${file.adminToken}` })).toBe(403);
    expect(await upgrade(bearer)).toBe(101);
  });

  it('a stale hub.json (its process is gone, or its link does not answer) is replaced by the new hub', async () => {
    for (const pid of [spawnSync(process.execPath, ['-e', '0']).pid ?? 0, process.pid]) {
      const home = tempHome();
      writeHubFile(home, {
        version: 1,
        pid,
        serverVersion: '0.0.0',
        startedAt: new Date().toISOString(),
        adminUrl: 'http://127.0.0.1:9/admin',
        adminToken: 'stale-admin-token-000000',
        relayUrl: 'ws://127.0.0.1:9/relay',
        frontUrl: 'ws://127.0.0.1:9/front',
        frontToken: 'stale-front-token-000000',
      });
      const running = await hubProcess(home);
      expect(running.role()).toBe('hub');
      expect(readHubFile(home)?.relayUrl).toBe(running.urls.relayUrl);
    }
  });
});

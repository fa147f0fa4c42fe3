import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveDemoPath, startDemoServer, type DemoServer } from './demoServer.js';
import { packageRoot, packageVersion } from './packageRoot.js';

const servers: DemoServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

function builtDemo(): string {
  const root = join(mkdtempSync(join(tmpdir(), 'tsmcp-demo-')), 'demo');
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>demo</title>');
  writeFileSync(join(root, 'assets', 'main.js'), 'export {};');
  writeFileSync(join(root, '..', 'secret.txt'), 'outside');
  return root;
}

async function start(root: string): Promise<DemoServer> {
  const server = await startDemoServer(
    { host: '127.0.0.1', port: 0 },
    { root, relayUrl: () => 'ws://127.0.0.1:7391/relay' },
  );
  servers.push(server);
  return server;
}

function get(server: DemoServer, path: string, method = 'GET', host = `127.0.0.1:${server.bound.port}`) {
  return new Promise<{ status: number; type: string; body: string; frames: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.bound.port, path, method, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type']),
          frames: `${String(res.headers['content-security-policy'])} | ${String(res.headers['x-frame-options'])}`,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('demo server (SPEC §11)', () => {
  it('serves index.html for / and files with their content types', async () => {
    const server = await start(builtDemo());
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(await get(server, '/')).toMatchObject({
      status: 200,
      type: 'text/html; charset=utf-8',
      body: '<!doctype html><title>demo</title>',
    });
    expect(await get(server, '/assets/main.js?v=1')).toMatchObject({
      status: 200,
      type: 'text/javascript; charset=utf-8',
    });
    expect(await get(server, '/missing.js')).toMatchObject({ status: 404 });
  });

  it("SPEC §9 every answer says frame-ancestors 'none': no page on another port may frame the terminal", async () => {
    const server = await start(builtDemo());
    const answers = [
      await get(server, '/'),
      await get(server, '/assets/main.js'),
      await get(server, '/missing.js'),
      await get(server, '/tradescript-config.json'),
      await get(server, '/', 'HEAD'),
      await get(server, '/', 'POST'),
      await get(server, '/', 'GET', `rebind.example:${server.bound.port}`),
    ];
    for (const answer of answers) expect(answer.frames).toBe("frame-ancestors 'none' | DENY");
  });

  it('names the relay in /tradescript-config.json', async () => {
    const server = await start(builtDemo());
    const res = await get(server, '/tradescript-config.json');
    expect(res.type).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual({ relayUrl: 'ws://127.0.0.1:7391/relay' });
  });

  it('answers GET and HEAD only', async () => {
    const server = await start(builtDemo());
    expect(await get(server, '/', 'HEAD')).toMatchObject({ status: 200, body: '' });
    expect((await get(server, '/', 'POST')).status).toBe(405);
  });

  it('never serves a file outside the demo folder', async () => {
    const server = await start(builtDemo());
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%00']) {
      const res = await get(server, path);
      expect(res.body).not.toContain('outside');
      expect([400, 404]).toContain(res.status);
    }
    expect(resolveDemoPath('/srv/demo', '/../x')).toBe('/srv/demo/x');
    expect(resolveDemoPath('/srv/demo', '/%2e%2e/%2e%2e/etc/passwd')).toBe('/srv/demo/etc/passwd');
  });

  it('refuses a foreign Host (DNS rebinding)', async () => {
    const server = await start(builtDemo());
    expect((await get(server, '/', 'GET', `rebind.example:${server.bound.port}`)).status).toBe(403);
  });

  it('tells the person to build when dist/demo is missing', async () => {
    const server = await start(join(tmpdir(), 'tsmcp-no-such-demo'));
    const res = await get(server, '/');
    expect(res.body).toContain('npm run build');
  });

  it('finds the package root and version from the source tree', () => {
    expect(packageVersion(packageRoot())).toMatch(/^\d+\.\d+\.\d+/);
  });
});

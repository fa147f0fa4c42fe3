import { existsSync, mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hubFilePath, readHubFile } from '../http/hubFile.js';
import { createLogger } from '../log.js';
import { openTab } from '../testing/testPeers.js';
import { testConfig } from '../testing/testHarness.js';
import { openHubRole, type HubRoleOptions, type OpenHubRole } from './hubRole.js';

const TAB_ORIGIN = 'http://127.0.0.1:5173';
const opened: OpenHubRole[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((role) => role.close()));
});

function options(overrides: Partial<HubRoleOptions> = {}): HubRoleOptions {
  const home = mkdtempSync(join(tmpdir(), 'tsmcp-hubrole-'));
  return {
    config: testConfig({ home, logLevel: 'silent', allowedOrigins: [TAB_ORIGIN] }),
    bind: { host: '127.0.0.1', port: 0 },
    mcp: null,
    demo: null,
    logger: createLogger('silent'),
    version: '0.0.0-test',
    ...overrides,
  };
}

async function open(overrides: Partial<HubRoleOptions> = {}) {
  const opts = options(overrides);
  const role = await openHubRole(opts);
  opened.push(role);
  return { role, home: opts.config.home };
}

/** GET `path` on the role's port with the admin token; status and body. */
function adminGet(home: string, path: string): Promise<{ status: number; body: string }> {
  const file = readHubFile(home);
  if (!file) throw new Error('no hub.json');
  return new Promise((resolve, reject) => {
    const req = request(
      `${file.adminUrl}${path}`,
      { headers: { authorization: `Bearer ${file.adminToken}` } },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the hub role opens before its machinery loads (SPEC §12 start → ready, SPEC §9)', () => {
  it('binds its port and writes hub.json; a tab that pairs with the first code before the hub loaded is answered by the hub', async () => {
    let loads = 0;
    const { role, home } = await open({
      machinery: () => {
        loads++;
        return import('./hubMachinery.js');
      },
    });
    // Nothing has asked for the machinery: hub.json already names the port.
    expect(readHubFile(home)).toMatchObject({ relayUrl: role.urls.relayUrl, pid: process.pid });
    expect(loads).toBe(0);
    const code = role.pairCode();
    const tab = await openTab(role.urls.relayUrl, TAB_ORIGIN, { code });
    expect(tab.sessionId).toMatch(/.+/);
    expect(loads).toBe(1);
    const running = await role.running;
    expect((await running.hub.listSessions()).map((s) => s.sessionId)).toEqual([tab.sessionId]);
  });

  it('an admin request that arrives before the machinery loaded waits for it and is answered', async () => {
    const { role, home } = await open();
    const answer = await adminGet(home, '/status');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ pid: process.pid, sessions: [] });
    await expect(role.running).resolves.toBeDefined();
  });

  it('machinery that cannot load is a clear error: what waited gets 503, the port and hub.json are gone, running rejects', async () => {
    const { role, home } = await open({
      machinery: () => Promise.reject(new Error('cannot load the hub: disk gone')),
    });
    const answer = await adminGet(home, '/status');
    expect(answer.status).toBe(503);
    await expect(role.running).rejects.toThrow('cannot load the hub: disk gone');
    await role.close();
    expect(existsSync(hubFilePath(home))).toBe(false);
  });

  it('a role closed before anything asked for its machinery closes its port and removes hub.json, and loads nothing after', async () => {
    let loads = 0;
    const { role, home } = await open({
      machinery: () => {
        loads++;
        return import('./hubMachinery.js');
      },
    });
    await role.close();
    expect(existsSync(hubFilePath(home))).toBe(false);
    void role.loaded();
    expect(loads).toBe(0);
  });
});

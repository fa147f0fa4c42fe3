import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { hubFilePath } from '../http/hubFile.js';
import { createLogger } from '../log.js';
import { modernMeta } from '../../testing/modernEnvelope.js';
import { testConfig } from '../testing/testHarness.js';
import { main } from '../cli/main.js';
import { ProbeEnded, startServer } from './startServer.js';

const tempHome = () => mkdtempSync(join(tmpdir(), 'tsmcp-probe-'));

const discover = {
  jsonrpc: '2.0',
  id: 0,
  method: 'server/discover',
  params: { _meta: modernMeta('probe') },
};
const listTools = { ...discover, id: 1, method: 'tools/list' };
const line = (message: unknown) => `${JSON.stringify(message)}\n`;

/** The JSON-RPC messages the server wrote so far. */
function answers(stdout: PassThrough): Array<Record<string, unknown>> {
  const text = String(stdout.read() ?? '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('a version probe over stdio (SPEC §2, §13)', () => {
  it('answers server/discover and, when stdin ends after it, exits 0 without ever taking a role', async () => {
    const home = tempHome();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    // The SDK's sibling probe writes before the process is even up.
    stdin.write(line(discover));
    const exit = main(['serve', '--stdio', '--port', '0', '--home', home], { env: {}, stdin, stdout, stderr });
    for (let i = 0; i < 200 && stdout.readableLength === 0; i += 1) await new Promise((r) => setTimeout(r, 5));
    const [answer] = answers(stdout);
    expect(answer).toMatchObject({ id: 0, result: { supportedVersions: ['2026-07-28'] } });
    expect(existsSync(hubFilePath(home))).toBe(false);
    stdin.end();
    expect(await exit).toBe(0);
    expect(existsSync(hubFilePath(home))).toBe(false);
    expect(String(stderr.read() ?? '')).not.toContain('tradescript-mcp ready');
  });

  it('startServer rejects with ProbeEnded for a lone probe, and takes its role once a second message follows', async () => {
    const lone = new PassThrough();
    lone.end(line(discover));
    const options = {
      mcp: 'stdio' as const,
      bind: { host: '127.0.0.1', port: 0 },
      demo: null,
      logger: createLogger('silent'),
    };
    await expect(
      startServer(testConfig({ home: tempHome(), logLevel: 'silent' }), {
        ...options,
        stdin: lone,
        stdout: new PassThrough(),
      }),
    ).rejects.toBeInstanceOf(ProbeEnded);

    const home = tempHome();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    stdin.write(line(discover));
    const starting = startServer(testConfig({ home, logLevel: 'silent' }), { ...options, stdin, stdout });
    await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(hubFilePath(home))).toBe(false);
    stdin.write(line(listTools));
    const running = await starting;
    expect(running.role()).toBe('hub');
    expect(existsSync(hubFilePath(home))).toBe(true);
    for (let i = 0; i < 200 && answers(stdout).length === 0; i += 1) await new Promise((r) => setTimeout(r, 5));
    stdin.end();
    await running.closed;
  });
});

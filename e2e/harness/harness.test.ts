/**
 * The harness's own guarantees, proved against a stand-in CLI
 * (fixtures/fakeCli.mjs) so they hold before the product exists: the ready line
 * is parsed, stderr is kept, both MCP transports connect, the envelope contract
 * is checked, and nothing outlives close().
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { callTool, connectHttpClient, connectStdioClient, isAlive, startServer } from './index.js';

const fakeCli = fileURLToPath(new URL('./fixtures/fakeCli.mjs', import.meta.url));

describe('e2e harness: the CLI contract (SPEC §11)', () => {
  it('startServer passes --port 0 and an isolated home, parses the ready line, keeps stderr, and close() kills the process tree', async () => {
    const server = await startServer(['serve', '--http', '127.0.0.1:0'], {
      bin: fakeCli,
      env: { FAKE_GRANDCHILD: '1' },
    });
    expect(server.ready.mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.ready.relayUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/relay$/);
    expect(server.ready.relayUrl).not.toBe('ws://127.0.0.1:7391/relay');
    expect(server.stderr()).toContain(`home ${server.home} args serve --http 127.0.0.1:0 --port 0`);
    expect(server.stderrLines().filter((line) => line.startsWith('tradescript-mcp ready '))).toHaveLength(1);
    expect(server.logs()).not.toContain('tradescript-mcp ready ');
    expect(server.logs()).toContain('tradescript-mcp:fake home');
    const grandchild = Number((await server.waitForStderr(/grandchild \d+/)).split(' ').pop());
    expect(isAlive(grandchild)).toBe(true);

    await server.close();
    expect(isAlive(server.pid)).toBe(false);
    await expect.poll(() => isAlive(grandchild), { timeout: 2_000 }).toBe(false);
    expect(existsSync(server.home)).toBe(false);
  });

  it('startServer rejects with the stderr tail when the CLI exits before its ready line', async () => {
    await expect(startServer(['demo'], { bin: fakeCli, env: { FAKE_EXIT_EARLY: '1' } })).rejects.toThrow(
      /exit code 3.*[\s\S]*cannot start: port in use/,
    );
  });

  it('connectHttpClient calls tools over Streamable HTTP', async () => {
    const server = await startServer(['serve', '--http', '127.0.0.1:0'], { bin: fakeCli });
    const client = await connectHttpClient(server.ready.mcpUrl ?? '');
    const ok = await callTool<{ value: string }>(client, 'echo', { value: 'x' });
    expect(ok.isError).toBe(false);
    expect(ok.envelope.data).toEqual({ value: 'x' });
    const many = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((i) => callTool(client, 'echo', { value: i })));
    expect(many.map((c) => c.envelope.data)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((value) => ({ value })));
    await client.close();
    await server.close();
  });

  it('connectStdioClient spawns the CLI, reads the ready line from its stderr, and close() ends it', async () => {
    const stdio = await connectStdioClient(['serve', '--stdio'], { bin: fakeCli });
    expect(stdio.ready.relayUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/relay$/);
    expect(stdio.ready.mcpUrl).toBeUndefined();
    const failed = await callTool(stdio.client, 'echo', { value: 'fail' });
    expect(failed.isError).toBe(true);
    expect(failed.envelope.error?.code).toBe('invalid_input');
    await stdio.close();
    expect(isAlive(stdio.pid)).toBe(false);
    expect(existsSync(stdio.home)).toBe(false);
  });

  it('callTool rejects a result that breaks the SPEC §4 envelope contract', async () => {
    const stdio = await connectStdioClient(['serve', '--stdio'], { bin: fakeCli });
    await expect(callTool(stdio.client, 'broken', {})).rejects.toThrow('SPEC §4: broken returned no structuredContent');
  });
});

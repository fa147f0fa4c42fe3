import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../protocol/index.js';
import { parseCommand, UsageError, type Command } from './args.js';

const env = { TRADESCRIPT_MCP_HOME: '/tmp/tsmcp-home' };
const parse = (...argv: string[]) => parseCommand(argv, env);
function serve(...argv: string[]): Extract<Command, { kind: 'serve' }> {
  const command = parse(...argv);
  if (command.kind !== 'serve') throw new Error(`not a server command: ${command.kind}`);
  return command;
}
const usageError = (...argv: string[]) => expect(() => parse(...argv)).toThrow(UsageError);

function tokenFile(content = 'a-long-enough-bearer-token'): string {
  const file = join(mkdtempSync(join(tmpdir(), 'tsmcp-token-')), 'token');
  writeFileSync(file, `${content}\n`);
  return file;
}

describe('CLI commands (SPEC §11)', () => {
  it('demo: HTTP MCP on 127.0.0.1:7391, demo on 7392, trading off, grant write', () => {
    const c = serve('demo');
    expect(c).toMatchObject({
      mcp: 'http',
      bind: { host: '127.0.0.1', port: 7391 },
      demo: { host: '127.0.0.1', port: 7392 },
    });
    expect(c.config).toMatchObject({
      adapter: { maxAccess: 'write', allowControls: null },
      toolAllowlist: null,
      pairGrant: 'write',
      home: '/tmp/tsmcp-home',
      bearerToken: null,
    });
    expect(c.config.limits).toEqual({ ...DEFAULT_LIMITS });
  });

  it('demo --port 0 makes both ports ephemeral; --demo-port sets the demo alone', () => {
    expect(serve('demo', '--port', '0')).toMatchObject({ bind: { port: 0 }, demo: { port: 0 } });
    expect(serve('demo', '--port', '0', '--demo-port', '8000')).toMatchObject({
      bind: { port: 0 },
      demo: { port: 8000 },
    });
    expect(serve('demo', '--demo-port', '0')).toMatchObject({ bind: { port: 7391 }, demo: { port: 0 } });
  });

  it('demo --stdio speaks MCP over stdio while serving relay and demo', () => {
    expect(serve('demo', '--stdio')).toMatchObject({ mcp: 'stdio', demo: { port: 7392 } });
  });

  it('serve needs exactly one of --stdio and --http', () => {
    expect(serve('serve', '--stdio')).toMatchObject({
      mcp: 'stdio',
      bind: { host: '127.0.0.1', port: 7391 },
      demo: null,
    });
    expect(serve('serve', '--http', '127.0.0.1:8123')).toMatchObject({
      mcp: 'http',
      bind: { host: '127.0.0.1', port: 8123 },
    });
    expect(serve('serve', '--http', '[::1]:0', '--port', '0')).toMatchObject({ bind: { host: '::1', port: 0 } });
    usageError('serve');
    usageError('serve', '--stdio', '--http', '127.0.0.1:1');
    usageError('serve', '--http', '127.0.0.1');
    usageError('serve', '--http', '127.0.0.1:70000');
  });

  it('refuses a non-loopback --http without --token-file (SPEC §9)', () => {
    expect(() => parse('serve', '--http', '0.0.0.0:7391')).toThrow(/--token-file/);
    const c = serve('serve', '--http', '0.0.0.0:7391', '--token-file', tokenFile());
    expect(c.config.bearerToken).toBe('a-long-enough-bearer-token');
    expect(() => parse('serve', '--stdio', '--token-file', tokenFile('short'))).toThrow(/at least 16/);
    usageError('serve', '--stdio', '--token-file', '/no/such/file');
  });

  it('serve --cluster (SPEC §14): HTTP only, a Redis URL, a token file naming principals, an optional public origin', () => {
    const file = tokenFile('{"version":1,"tokens":[]}');
    const c = serve('serve', '--http', '0.0.0.0:7391', '--cluster', 'redis://redis:6379/2', '--token-file', file);
    expect(c.cluster).toEqual({ redisUrl: 'redis://redis:6379/2', tokenFile: file, publicUrl: null });
    // The token file is the node's principals file here, not one shared token.
    expect(c.config.bearerToken).toBeNull();
    const behindProxy = serve(
      ...['serve', '--http', '127.0.0.1:0', '--cluster', 'rediss://r:6380', '--token-file', file],
      ...['--public-url', 'https://bridge.example.com/'],
    );
    expect(behindProxy.cluster?.publicUrl).toBe('https://bridge.example.com');
    expect(serve('serve', '--http', '127.0.0.1:7391').cluster).toBeUndefined();
    expect(() => parse('serve', '--http', '127.0.0.1:1', '--cluster', 'redis://r')).toThrow(/--token-file/);
    expect(() => parse('serve', '--stdio', '--cluster', 'redis://r', '--token-file', file)).toThrow(/--http/);
    expect(() => parse('serve', '--http', '127.0.0.1:1', '--cluster', 'http://r', '--token-file', file)).toThrow(
      /Redis URL/,
    );
    expect(() => parse('serve', '--http', '127.0.0.1:1', '--public-url', 'https://x')).toThrow(/--cluster/);
    const badPublic = ['--public-url', 'https://x/path'];
    expect(() =>
      parse('serve', '--http', '127.0.0.1:1', '--cluster', 'redis://r', '--token-file', file, ...badPublic),
    ).toThrow(/--public-url/);
    usageError('demo', '--cluster', 'redis://r');
  });

  it('--enable-trading raises the adapter maximum; --allow-controls narrows it and needs it (SPEC §5)', () => {
    expect(serve('serve', '--stdio', '--enable-trading').config.adapter).toEqual({
      maxAccess: 'trade',
      allowControls: null,
    });
    const narrowed = serve(
      'serve',
      '--stdio',
      '--enable-trading',
      '--allow-controls',
      'orders.cancelOrder,alerts.*',
      '--allow-controls',
      'risk.flatten',
    );
    expect(narrowed.config.adapter.allowControls).toEqual(['orders.cancelOrder', 'alerts.*', 'risk.flatten']);
    expect(() => parse('serve', '--stdio', '--allow-controls', 'orders.cancelOrder')).toThrow(/--enable-trading/);
    usageError('serve', '--stdio', '--enable-trading', '--allow-controls', 'orders.*.x');
  });

  it('--tool-allowlist takes known tool names only', () => {
    expect(
      serve('serve', '--stdio', '--tool-allowlist', 'tradescript_get_context,tradescript_snapshot').config
        .toolAllowlist,
    ).toEqual(['tradescript_get_context', 'tradescript_snapshot']);
    expect(() => parse('serve', '--stdio', '--tool-allowlist', 'tradescript_nope')).toThrow(/unknown tool/);
  });

  it('--limit lowers a limit and refuses raising, unknown names and junk (SPEC §6)', () => {
    const c = serve('serve', '--stdio', '--limit', 'batchCalls=10', '--limit', 'callDeadlineMs=5000');
    expect(c.config.limits).toMatchObject({ batchCalls: 10, callDeadlineMs: 5000, callArgs: 16 });
    expect(() => parse('serve', '--stdio', '--limit', 'batchCalls=26')).toThrow(/only be lowered/);
    expect(() => parse('serve', '--stdio', '--limit', 'nope=1')).toThrow(/Unknown limit/);
    expect(() => parse('serve', '--stdio', '--limit', 'batchCalls=0')).toThrow(/positive integer/);
    usageError('serve', '--stdio', '--limit', 'batchCalls');
    usageError('serve', '--stdio', '--limit', 'batchCalls=1.5');
  });

  it('--allowed-origin is repeatable and normalized; junk is refused', () => {
    const ext = `chrome-extension://${'a'.repeat(32)}`;
    const c = serve('serve', '--stdio', '--allowed-origin', 'HTTPS://Terminal.Example/', '--allowed-origin', ext);
    expect(c.config.allowedOrigins).toEqual(['https://terminal.example', ext]);
    usageError('serve', '--stdio', '--allowed-origin', 'https://terminal.example/path');
    usageError('serve', '--stdio', '--allowed-origin', 'not an origin');
  });

  it('--grant applies to pair and demo only; --log-level and --home are checked', () => {
    expect(serve('demo', '--grant', 'trade').config.pairGrant).toBe('trade');
    expect(parse('pair', '--grant', 'read')).toEqual({
      kind: 'pair',
      home: '/tmp/tsmcp-home',
      grant: 'read',
      json: false,
    });
    usageError('pair', '--grant', 'admin');
    usageError('serve', '--stdio', '--grant', 'trade');
    usageError('serve', '--stdio', '--log-level', 'loud');
    expect(serve('serve', '--stdio', '--home', '/tmp/elsewhere').config.home).toBe('/tmp/elsewhere');
  });

  it('status and sessions [list|revoke ID]', () => {
    expect(parse('status', '--json')).toEqual({ kind: 'status', home: '/tmp/tsmcp-home', json: true });
    expect(parse('sessions')).toMatchObject({ kind: 'sessions', revoke: null });
    expect(parse('sessions', 'list')).toMatchObject({ kind: 'sessions', revoke: null });
    expect(parse('sessions', 'revoke', 's_abc')).toMatchObject({ kind: 'sessions', revoke: 's_abc' });
    usageError('sessions', 'revoke');
    usageError('sessions', 'drop', 'x');
  });

  it('refuses unknown commands, unknown flags and flags of another command', () => {
    usageError();
    usageError('launch');
    usageError('demo', '--frobnicate');
    usageError('status', '--enable-trading');
    usageError('demo', 'extra');
    expect(parse('--help')).toEqual({ kind: 'help' });
    expect(parse('--version')).toEqual({ kind: 'version' });
  });
});

/**
 * Parses the command line (SPEC §11) into one command. Anything wrong is a
 * {@link UsageError} whose message names the fix; the CLI exits 2 on it.
 */
import { parseArgs } from 'node:util';
import type { Grant } from '../../protocol/index.js';
import type { ServerConfig } from '../config.js';
import type { BoundAddress } from '../http/requestGuard.js';
import { isLoopbackHost } from '../http/requestGuard.js';
import { resolveHome } from '../pairing/secureFile.js';
import { buildConfig } from './buildConfig.js';
import { parseGrant, UsageError } from './usageError.js';
import type { ClusterOptions } from '../cluster/clusterNode.js';

export { UsageError };

/** What to run. */
export type Command =
  | { kind: 'help' }
  | { kind: 'version' }
  | {
      kind: 'serve';
      mcp: 'stdio' | 'http';
      bind: BoundAddress;
      demo: BoundAddress | null;
      config: ServerConfig;
      /** `--cluster` (SPEC §14): this process is one node of a cluster on Redis. */
      cluster?: ClusterOptions;
    }
  | { kind: 'pair'; home: string; grant: Grant | null; json: boolean }
  | { kind: 'status'; home: string; json: boolean }
  | { kind: 'sessions'; home: string; json: boolean; revoke: string | null };

const OPTIONS = {
  stdio: { type: 'boolean' },
  http: { type: 'string' },
  port: { type: 'string' },
  'demo-port': { type: 'string' },
  'enable-trading': { type: 'boolean' },
  'allow-controls': { type: 'string', multiple: true },
  'tool-allowlist': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  'token-file': { type: 'string' },
  cluster: { type: 'string' },
  'public-url': { type: 'string' },
  grant: { type: 'string' },
  limit: { type: 'string', multiple: true },
  'log-level': { type: 'string' },
  home: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** The parsed flags. */
export type Flags = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>
>['values'];

const SERVER_FLAGS = [
  'enable-trading',
  'allow-controls',
  'tool-allowlist',
  'allowed-origin',
  'token-file',
  'limit',
  'log-level',
  'home',
  'port',
];
const ALLOWED: Record<string, string[]> = {
  serve: [...SERVER_FLAGS, 'stdio', 'http', 'cluster', 'public-url'],
  demo: [...SERVER_FLAGS, 'stdio', 'demo-port', 'grant'],
  pair: ['grant', 'home', 'json'],
  status: ['home', 'json'],
  sessions: ['home', 'json'],
};

/** Default ports (SPEC §11). */
export const DEFAULT_MCP_PORT = 7391;
/** The demo terminal's default port. */
export const DEFAULT_DEMO_PORT = 7392;

/** Parses `argv` (without node and the script). */
export function parseCommand(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Command {
  let parsed: { values: Flags; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values: flags, positionals } = parsed;
  if (flags.help) return { kind: 'help' };
  if (flags.version) return { kind: 'version' };
  const [name, ...rest] = positionals;
  if (name === undefined) throw new UsageError('Name a command: demo, serve, pair, status or sessions.');
  const allowed = ALLOWED[name];
  if (!allowed) throw new UsageError(`Unknown command "${name}". Commands: demo, serve, pair, status, sessions.`);
  for (const flag of Object.keys(flags)) {
    if (!allowed.includes(flag)) throw new UsageError(`--${flag} does not apply to "${name}".`);
  }
  if (name !== 'sessions' && rest.length > 0) throw new UsageError(`Unexpected argument "${rest[0]}".`);
  const home = resolveHome(flags.home, env);
  const json = flags.json === true;
  switch (name) {
    case 'serve':
      return serveCommand(flags, env);
    case 'demo':
      return demoCommand(flags, env);
    case 'pair':
      return { kind: 'pair', home, json, grant: flags.grant === undefined ? null : parseGrant(flags.grant) };
    case 'status':
      return { kind: 'status', home, json };
    default:
      return { kind: 'sessions', home, json, revoke: sessionsAction(rest) };
  }
}

function sessionsAction(rest: string[]): string | null {
  const [action = 'list', id, extra] = rest;
  if (action === 'list' && id === undefined) return null;
  if (action === 'revoke' && id !== undefined && extra === undefined) return id;
  throw new UsageError('Use "sessions", "sessions list" or "sessions revoke ID".');
}

/** Parses a port, 0 meaning ephemeral. */
export function parsePort(value: string, flag: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535)
    throw new UsageError(`${flag} must be a port from 0 to 65535 (got "${value}").`);
  return Number(value);
}

/** Parses `HOST:PORT` (`[::1]:PORT` for IPv6). */
export function parseHostPort(value: string): BoundAddress {
  const match = /^(?:\[([0-9a-fA-F:]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(value);
  const host = match?.[1] ?? match?.[2];
  if (!match || host === undefined)
    throw new UsageError(`--http takes HOST:PORT, e.g. 127.0.0.1:7391 (got "${value}").`);
  return { host, port: parsePort(match[3] ?? '', '--http PORT') };
}

function serveCommand(flags: Flags, env: NodeJS.ProcessEnv): Command {
  if (flags.stdio === (flags.http !== undefined))
    throw new UsageError('serve needs exactly one of --stdio or --http HOST:PORT.');
  if (flags.cluster !== undefined || flags['public-url'] !== undefined) return clusterCommand(flags, env);
  const config = buildConfig(flags, env);
  const port = flags.port === undefined ? undefined : parsePort(flags.port, '--port');
  if (flags.stdio)
    return {
      kind: 'serve',
      mcp: 'stdio',
      bind: { host: '127.0.0.1', port: port ?? DEFAULT_MCP_PORT },
      demo: null,
      config,
    };
  const bind = parseHostPort(flags.http ?? '');
  if (port !== undefined) bind.port = port;
  if (!isLoopbackHost(bind.host) && config.bearerToken === null) {
    throw new UsageError(
      `--http ${bind.host} is not a loopback address: add --token-file FILE so every request must carry a bearer token.`,
    );
  }
  return { kind: 'serve', mcp: 'http', bind, demo: null, config };
}

/** `serve --http HOST:PORT --cluster redis://… --token-file FILE [--public-url URL]` (SPEC §14). */
function clusterCommand(flags: Flags, env: NodeJS.ProcessEnv): Command {
  if (flags.cluster === undefined) throw new UsageError('--public-url applies to --cluster nodes.');
  if (flags.http === undefined) throw new UsageError('--cluster serves MCP over HTTP: use --http HOST:PORT.');
  if (!/^rediss?:\/\/[^\s]+$/.test(flags.cluster))
    throw new UsageError(`--cluster takes a Redis URL, e.g. redis://127.0.0.1:6379 (got "${flags.cluster}").`);
  const tokenFile = flags['token-file'];
  if (tokenFile === undefined)
    throw new UsageError(
      '--cluster needs --token-file FILE: every request must carry a bearer token naming its principal.',
    );
  const publicUrl = flags['public-url'] ?? null;
  if (publicUrl !== null && !/^https?:\/\/[^/\s]+\/?$/.test(publicUrl))
    throw new UsageError(
      `--public-url takes the origin clients use, e.g. https://bridge.example (got "${publicUrl}").`,
    );
  // The token file maps tokens to principals here; it is read by the node, not as one shared token.
  const config = buildConfig({ ...flags, 'token-file': undefined }, env);
  const bind = parseHostPort(flags.http);
  if (flags.port !== undefined) bind.port = parsePort(flags.port, '--port');
  return {
    kind: 'serve',
    mcp: 'http',
    bind,
    demo: null,
    config,
    cluster: { redisUrl: flags.cluster, tokenFile, publicUrl: publicUrl?.replace(/\/$/, '') ?? null },
  };
}

function demoCommand(flags: Flags, env: NodeJS.ProcessEnv): Command {
  const config = buildConfig(flags, env);
  const port = flags.port === undefined ? DEFAULT_MCP_PORT : parsePort(flags.port, '--port');
  const demoPort =
    flags['demo-port'] !== undefined
      ? parsePort(flags['demo-port'], '--demo-port')
      : port === 0
        ? 0
        : DEFAULT_DEMO_PORT;
  return {
    kind: 'serve',
    mcp: flags.stdio ? 'stdio' : 'http',
    bind: { host: '127.0.0.1', port },
    demo: { host: '127.0.0.1', port: demoPort },
    config,
  };
}

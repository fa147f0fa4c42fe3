/**
 * Turns server flags into a {@link ServerConfig} (SPEC §5, §6, §9): the adapter
 * maximum, tool allowlist, lowered limits, relay origins, bearer token, home,
 * log level and the grant a pairing link proposes.
 */
import { readFileSync } from 'node:fs';
// The CLI's path to a server's ready line loads no wire schema (SPEC §12): constants only.
import type { ToolName } from '../../protocol/index.js';
import { lowerLimits, type Limits } from '../../protocol/limits.js';
import { DEFAULT_GRANT, TOOL_NAME_LIST } from '../../protocol/names.js';
import type { ServerConfig } from '../config.js';
import { LOG_LEVELS, type LogLevel } from '../log.js';
import { resolveHome } from '../pairing/secureFile.js';
import { normalizeOrigin } from '../relay/originPolicy.js';
import type { Flags } from './args.js';
import { parseGrant, UsageError } from './usageError.js';

const CONTROL_PATTERN = /^[A-Za-z_$][\w$-]*(\.[A-Za-z_$][\w$-]*)*(\.\*)?$/;
const MIN_TOKEN_LENGTH = 16;

/** Splits repeatable comma lists: `--x a,b --x c` → `[a, b, c]`. */
function list(values: string[] | undefined): string[] | null {
  if (values === undefined) return null;
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** Parses `--limit NAME=VALUE` flags and lowers the defaults; raising is refused. */
export function parseLimits(values: string[] | undefined): Limits {
  const overrides: Record<string, number> = {};
  for (const value of values ?? []) {
    const match = /^([A-Za-z]+)=(\d+)$/.exec(value.trim());
    if (!match?.[1] || match[2] === undefined)
      throw new UsageError(`--limit takes NAME=VALUE with a whole number, e.g. batchCalls=10 (got "${value}").`);
    overrides[match[1]] = Number(match[2]);
  }
  try {
    return lowerLimits(overrides);
  } catch (error) {
    throw new UsageError(`--limit: ${(error as Error).message}`);
  }
}

function toolAllowlist(values: string[] | undefined): ToolName[] | null {
  const names = list(values);
  if (names === null) return null;
  for (const name of names) {
    if (!(TOOL_NAME_LIST as readonly string[]).includes(name))
      throw new UsageError(`--tool-allowlist: unknown tool "${name}". Tools: ${TOOL_NAME_LIST.join(', ')}.`);
  }
  return [...new Set(names)] as ToolName[];
}

function allowControls(values: string[] | undefined, trading: boolean): string[] | null {
  const patterns = list(values);
  if (patterns === null) return null;
  if (!trading) throw new UsageError('--allow-controls narrows trading: add --enable-trading.');
  for (const p of patterns) {
    if (p.length > 128 || !CONTROL_PATTERN.test(p))
      throw new UsageError(`--allow-controls: "${p}" is not a control id or controller.* pattern.`);
  }
  return [...new Set(patterns)];
}

function origins(values: string[] | undefined): string[] {
  return (values ?? []).map((value) => {
    const origin = normalizeOrigin(value);
    if (origin === null)
      throw new UsageError(
        `--allowed-origin: "${value}" is not an origin like https://terminal.example or chrome-extension://ID.`,
      );
    return origin;
  });
}

function bearerToken(file: string | undefined): string | null {
  if (file === undefined) return null;
  let token: string;
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch {
    throw new UsageError(`--token-file: cannot read "${file}".`);
  }
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
    throw new UsageError(
      `--token-file: the token must be one line of at least ${MIN_TOKEN_LENGTH} characters without spaces.`,
    );
  }
  return token;
}

function logLevel(value: string | undefined): LogLevel {
  if (value === undefined) return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(value))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}.`);
  return value as LogLevel;
}

/** Builds the server configuration from flags. */
export function buildConfig(flags: Flags, env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const trading = flags['enable-trading'] === true;
  return {
    adapter: { maxAccess: trading ? 'trade' : 'write', allowControls: allowControls(flags['allow-controls'], trading) },
    toolAllowlist: toolAllowlist(flags['tool-allowlist']),
    limits: parseLimits(flags.limit),
    allowedOrigins: origins(flags['allowed-origin']),
    bearerToken: bearerToken(flags['token-file']),
    home: resolveHome(flags.home, env),
    logLevel: logLevel(flags['log-level']),
    pairGrant: flags.grant === undefined ? DEFAULT_GRANT : parseGrant(flags.grant),
  };
}

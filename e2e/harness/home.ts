/**
 * An isolated `TRADESCRIPT_MCP_HOME` per server, so no test reads or writes the
 * developer's credentials and no two tests share state by accident.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverBin } from './paths.js';

/** Creates a fresh, private home directory. */
export function makeTempHome(): string {
  return mkdtempSync(join(tmpdir(), 'tradescript-home-'));
}

/** Removes a home made by {@link makeTempHome}. */
export function removeTempHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}

/** `args` with `--port 0` appended unless it names a port already. */
export function withEphemeralPort(args: readonly string[], ephemeral: boolean): string[] {
  return ephemeral && !args.some((a) => a === '--port' || a.startsWith('--port='))
    ? [...args, '--port', '0']
    : [...args];
}

/** Throws the next step when the CLI has not been built. */
export function assertBuilt(): void {
  if (!existsSync(serverBin)) throw new Error(`${serverBin} is missing: run \`npm run build\` first (npm test does).`);
}

/** The child's environment: ours, the caller's additions, and the isolated home. */
export function childEnv(home: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, ...extra, TRADESCRIPT_MCP_HOME: home })) {
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/**
 * State that outlives a process (SPEC §9): a directory of mode 0700 holding
 * files of mode 0600, each written atomically (temporary file, then rename).
 * An existing directory with a looser mode is tightened to 0700.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** `--home DIR`, else `$TRADESCRIPT_MCP_HOME`, else `~/.tradescript-mcp`. */
export function resolveHome(flag?: string | null, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return resolve(flag);
  if (env.TRADESCRIPT_MCP_HOME) return resolve(env.TRADESCRIPT_MCP_HOME);
  return join(homedir(), '.tradescript-mcp');
}

/**
 * Creates `dir` with mode 0700 when missing; an existing one that others may
 * read, write or enter is tightened to 0700. Returns the mode it had when it
 * was tightened, else null.
 */
export function secureDirectory(dir: string): number | null {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) === 0) return null;
  chmodSync(dir, 0o700);
  return mode;
}

/** Writes `text` to `path` (mode 0600), in a directory of mode 0700 (created or tightened). */
export function writeSecureFile(path: string, text: string): void {
  secureDirectory(dirname(path));
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o600 });
  // An existing file keeps its mode through rename of the new one; set it explicitly anyway.
  chmodSync(temp, 0o600);
  renameSync(temp, path);
}

/** Reads a JSON file; null when it does not exist or is not JSON. */
export function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return null;
  }
}

/** Removes a file if present. */
export function removeFile(path: string): void {
  rmSync(path, { force: true });
}

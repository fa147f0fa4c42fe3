/**
 * The MCP Inspector's CLI (`npx @modelcontextprotocol/inspector --cli …`) as a
 * third-party client: the pinned devDependency (0.15.0, the newest that runs on
 * Node 20) as a child process, one process per method, exactly as a person
 * types it. It brings its own MCP client; nothing of ours is in between.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { childEnv } from './home.js';
import { repoRoot } from './paths.js';

const require = createRequire(import.meta.url);

/** `mcp-inspector`, the bin `npx @modelcontextprotocol/inspector` runs. */
export const inspectorBin = join(
  dirname(require.resolve('@modelcontextprotocol/inspector/package.json')),
  'cli/build/cli.js',
);

/** What one Inspector run printed. */
export interface InspectorRun {
  /** stdout parsed as JSON (the Inspector prints the result it received). */
  json: unknown;
  stderr: string;
}

/**
 * Runs `mcp-inspector --cli <target…> --method <method> [args…]` and parses its
 * stdout. `target` is the MCP URL, or a command and its arguments (stdio).
 * Rejects with the Inspector's output when it exits non-zero.
 */
export function inspect(
  target: readonly string[],
  method: string,
  args: readonly string[] = [],
  env: { home?: string } = {},
): Promise<InspectorRun> {
  const argv = [inspectorBin, '--cli', ...target, '--method', method, ...args];
  const childEnvironment = env.home === undefined ? process.env : childEnv(env.home);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      argv,
      { cwd: repoRoot, env: childEnvironment, timeout: 60_000, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`mcp-inspector ${method} failed: ${error.message}\n${stdout}\n${stderr}`));
          return;
        }
        try {
          resolve({ json: JSON.parse(stdout), stderr });
        } catch {
          reject(new Error(`mcp-inspector ${method} printed no JSON:\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

/** `--tool-name NAME --tool-arg k=v …`, objects and arrays written as JSON, as a person would type them. */
export function toolArgs(name: string, args: Record<string, unknown>): string[] {
  const out = ['--tool-name', name];
  for (const [key, value] of Object.entries(args)) {
    out.push('--tool-arg', `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return out;
}

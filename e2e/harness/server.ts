/**
 * `startServer`: the real CLI as a child process, ready when it says so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { track, trackProcess } from './cleanup.js';
import { assertBuilt, childEnv, makeTempHome, removeTempHome, withEphemeralPort } from './home.js';
import { captureLines, type LineLog } from './lineLog.js';
import { repoRoot, serverBin } from './paths.js';
import { killTree, processTree } from './processTree.js';
import { logLines, waitForReady, type ReadyInfo } from './readyLine.js';
import { harnessTimeouts } from './timeouts.js';

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** The script to run instead of dist/node/server/bin.js (the harness's own tests use a stand-in). */
  bin?: string;
  /** Extra environment for the child (`TRADESCRIPT_MCP_HOME` is always the harness's). */
  env?: Record<string, string | undefined>;
  /** Use this home instead of a fresh temporary one (it is then not removed on close). */
  home?: string;
  /** Append `--port 0` unless the args name a port (default true). */
  ephemeralPort?: boolean;
  /** Overrides {@link harnessTimeouts.readyMs}. */
  readyTimeoutMs?: number;
}

/** A running CLI. */
export interface ServerHandle {
  /** The ready line's JSON. */
  readonly ready: ReadyInfo;
  /** Its `TRADESCRIPT_MCP_HOME`. */
  readonly home: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** All of stderr so far (logs; for assertions such as "no secret is ever logged"). */
  stderr(): string;
  /** The stderr lines so far, ready line included. */
  stderrLines(): string[];
  /**
   * The log lines so far: stderr without the ready line, which carries the
   * pairing link by contract. Assert "never logged" (codes, credentials) on this.
   */
  logs(): string;
  /** All of stdout so far. */
  stdout(): string;
  /** Waits for a stderr line (already written or still to come). */
  waitForStderr(match: RegExp | string, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code or signal when the process ends. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after {@link harnessTimeouts.closeMs}; kills the whole tree; removes a temporary home. */
  close(): Promise<void>;
}

/**
 * Spawns `node dist/node/server/bin.js ...args --port 0` with an isolated
 * temporary `TRADESCRIPT_MCP_HOME`, and resolves once its ready line (SPEC §11)
 * arrives. Rejects, with the stderr tail, if it exits or stays silent for
 * `readyTimeoutMs`. The process is killed at the end of the test file at the
 * latest, and on process exit.
 */
export async function startServer(args: readonly string[], opts: StartServerOptions = {}): Promise<ServerHandle> {
  const bin = opts.bin ?? serverBin;
  if (opts.bin === undefined) assertBuilt();
  const home = opts.home ?? makeTempHome();
  const child = spawn(process.execPath, [bin, ...withEphemeralPort(args, opts.ephemeralPort ?? true)], {
    cwd: repoRoot,
    env: childEnv(home, opts.env),
    // stdin stays open (and unused) so a server that ends with its stdin does not.
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group: one signal reaches everything it starts.
    detached: true,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not spawn ${bin}`);
  const untrackProcess = trackProcess(pid, () => processTree(pid));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const stderr: LineLog = captureLines(child.stderr);
  const stdout: LineLog = captureLines(child.stdout);
  child.stdin.on('error', () => {});

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      untrack();
      const tree = processTree(pid);
      if (child.exitCode === null && child.signalCode === null) {
        killTree(pid, 'SIGTERM', [pid]);
        const timer = new Promise<'timeout'>((resolve) =>
          setTimeout(resolve, harnessTimeouts.closeMs, 'timeout').unref(),
        );
        await Promise.race([exited, timer]);
      }
      killTree(pid, 'SIGKILL', tree);
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      untrackProcess();
      child.stdin.destroy();
      if (opts.home === undefined) removeTempHome(home);
    })());
  const untrack = track(close);

  let ready: ReadyInfo;
  try {
    ready = await waitForReady(stderr, opts.readyTimeoutMs ?? harnessTimeouts.readyMs);
  } catch (error) {
    await close();
    const exit = child.exitCode !== null ? ` (exit code ${child.exitCode})` : '';
    throw new Error(`startServer(${JSON.stringify(args)})${exit}: ${(error as Error).message}`);
  }

  return {
    ready,
    home,
    pid,
    child,
    stderr: stderr.text,
    stderrLines: stderr.lines,
    logs: () => logLines(stderr.lines()),
    stdout: stdout.text,
    waitForStderr: (match, timeoutMs = harnessTimeouts.readyMs) => stderr.waitFor(match, timeoutMs),
    exited,
    close,
  };
}

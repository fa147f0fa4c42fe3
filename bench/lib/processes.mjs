/**
 * Child processes the bench starts itself (anchors, spawns for start-up
 * timing): each is killed when the bench exits, whatever the reason.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();
let hooked = false;

/** Registers a child to be killed on exit; returns a function that unregisters it. */
export function trackChild(child) {
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const c of children) c.kill('SIGKILL');
    });
  }
  children.add(child);
  child.once('exit', () => children.delete(child));
  return () => children.delete(child);
}

/**
 * Spawns `node ...args` and resolves when a stderr line starts with `prefix`,
 * with the rest of that line, the time from spawn to that line, and the child.
 * @param {string[]} args
 * @param {{ prefix: string, env?: NodeJS.ProcessEnv, timeoutMs?: number, cwd?: string }} opts
 */
export function spawnUntilLine(args, opts) {
  const startedAt = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  trackChild(child);
  const tail = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`no "${opts.prefix.trim()}" line within ${opts.timeoutMs ?? 20_000} ms`)),
      opts.timeoutMs ?? 20_000,
    );
    const fail = (error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')}: ${error.message}\n${tail.slice(-10).join('\n')}`));
    };
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`exited with ${code} before its ready line`)));
    createInterface({ input: child.stderr }).on('line', (line) => {
      tail.push(line);
      if (!line.startsWith(opts.prefix)) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ child, readyMs: performance.now() - startedAt, rest: line.slice(opts.prefix.length) });
    });
  });
}

/** Kills a child and waits (bounded) for it to go. */
export async function stopChild(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await gone;
  clearTimeout(timer);
}

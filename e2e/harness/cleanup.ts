/**
 * Everything the harness opens is registered here, so nothing outlives a test
 * file: `closeAll()` closes what is still open (the harness index registers it
 * as an `afterAll` of every test file), and on process exit or a termination
 * signal every still-registered child process tree is killed synchronously.
 */
import { killTree, processTree } from './processTree.js';
import { harnessTimeouts } from './timeouts.js';

type Closer = () => Promise<void>;

const open = new Set<Closer>();

/**
 * Kept on globalThis: vitest may run several test files in one process, each
 * with fresh module instances, and one set of exit handlers is enough.
 */
interface ProcessRegistry {
  processes: Map<number, () => number[]>;
  hooked: boolean;
}
const registryKey = Symbol.for('tradescript-mcp.e2e.processes');
const registry: ProcessRegistry = ((globalThis as Record<symbol, unknown>)[registryKey] as
  ProcessRegistry | undefined) ?? {
  processes: new Map(),
  hooked: false,
};
(globalThis as Record<symbol, unknown>)[registryKey] = registry;

/** Registers a resource's close function; returns a function that unregisters it. */
export function track(close: Closer): () => void {
  open.add(close);
  return () => {
    open.delete(close);
  };
}

/**
 * Closes every resource still open, newest first (clients before servers, pages
 * before browsers), one at a time, each within {@link harnessTimeouts.closeMs}
 * × 3. Throws an AggregateError if any close failed or timed out.
 */
export async function closeAll(): Promise<void> {
  const pending = [...open].reverse();
  open.clear();
  const errors: unknown[] = [];
  for (const close of pending) {
    try {
      await settleWithin(close(), harnessTimeouts.closeMs * 3, 'closing a harness resource');
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, `harness: ${errors.length} resource(s) failed to close`);
}

/**
 * Registers a child process to be killed (with its tree) if this process exits
 * first. `tree` may return pids recorded earlier (descendants are lost once
 * their parent dies). Returns a function that unregisters it.
 */
export function trackProcess(pid: number, tree: () => number[] = () => processTree(pid)): () => void {
  hookExit();
  registry.processes.set(pid, tree);
  return () => {
    registry.processes.delete(pid);
  };
}

function killTracked(): void {
  for (const [pid, tree] of registry.processes) killTree(pid, 'SIGKILL', tree());
  registry.processes.clear();
}

function hookExit(): void {
  if (registry.hooked) return;
  registry.hooked = true;
  process.once('exit', killTracked);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killTracked();
      process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
    });
  }
}

/** Rejects with a named timeout when `promise` takes longer than `ms`. */
export async function settleWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

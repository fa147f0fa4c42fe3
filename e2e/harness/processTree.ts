/**
 * Killing a process with everything it started. Linux only (the e2e machines are
 * Debian): descendants are found through `/proc`, and a process spawned with
 * `detached: true` leads its own group, which is signalled as a whole too.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The parent pid of every live process, from `/proc/<pid>/stat`. */
function parentsByPid(): Map<number, number> {
  const parents = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return parents;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // The process ended while we read.
    }
  }
  return parents;
}

/** `pid` and all its live descendants, parents first. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const [child, parent] of parentsByPid()) {
    const list = children.get(parent) ?? [];
    list.push(child);
    children.set(parent, list);
  }
  const tree: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

/** Sends `signal` to a pid, ignoring processes that are already gone. */
function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

/**
 * Signals `pid`'s process group (when it leads one) and every process in
 * `pids` (default: the live tree under `pid`). Synchronous, so it also works
 * in an `exit` handler.
 */
export function killTree(pid: number, signal: NodeJS.Signals = 'SIGKILL', pids: number[] = processTree(pid)): void {
  signalPid(-pid, signal);
  for (const member of pids) signalPid(member, signal);
}

/** Live processes whose command line has `arg` as one of its arguments. */
export function pidsWithArgument(arg: string): number[] {
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(arg)) found.push(Number(entry));
    } catch {
      // The process ended while we read.
    }
  }
  return found;
}

/** True while a process with this pid runs (a zombie waiting to be reaped does not). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

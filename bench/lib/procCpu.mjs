/**
 * CPU time of processes from /proc (utime + stime), with no profiler attached.
 */
import { readFileSync } from 'node:fs';

const TICK_MS = 1000 / 100; // USER_HZ

/** utime + stime (ms) of `pids`, in 10 ms ticks; a pid that ended counts nothing. */
export function cpuMs(pids) {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // ended
    }
  }
  return ticks * TICK_MS;
}

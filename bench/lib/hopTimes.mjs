#!/usr/bin/env node
/**
 * Runs a Node script (the server) and notes, between two SIGUSR2 signals, when
 * its I/O happened and when it collected garbage, on the monotonic clock
 * (`process.hrtime`, the clock of Chromium's trace timestamps on Linux), for
 * bench/tailCalls.mjs:
 *
 *   node bench/lib/hopTimes.mjs <out.json> <script> [args…]
 *
 * Noted, in µs: each `data` event of stdin (a request reaches JS) and of any
 * other socket (the relay's WebSocket: an answer from the page), each write to
 * stdout (an answer leaves) and to any other socket (a request to the page),
 * with its byte length and the process's CPU time so far (`process.cpuUsage`,
 * user + system µs: between two events, wall time well above the CPU time
 * spent means the process waited, for input or for a core), and each GC (perf_hooks 'gc' entries: start, duration,
 * kind). The first SIGUSR2 starts noting, the second writes `<out.json>` and
 * prints `hopTimes: written` on stderr. Nothing of the product is changed:
 * net.Socket's `emit` and `write` are wrapped in this process only.
 */
import { writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { PerformanceObserver, constants, performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [out, script, ...rest] = process.argv.slice(2);
if (!out || !script) {
  process.stderr.write('usage: node bench/lib/hopTimes.mjs <out.json> <script> [args…]\n');
  process.exit(2);
}
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
/** performance.now() (ms since this process's origin) → monotonic µs. */
const perfToUs = nowUs() - performance.now() * 1000;
const GC_KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak-callbacks',
};
const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
/** @type {{ kind: string, at: number, bytes?: number, cpu?: number, dur?: number }[]} */
let events = [];
let noting = false;

const byteLength = (chunk) => (typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk?.length ?? 0));
const emit = Socket.prototype.emit;
Socket.prototype.emit = function notedEmit(name, chunk, ...more) {
  if (noting && name === 'data') {
    const kind = this === process.stdin ? 'stdin' : 'sockIn';
    events.push({ kind, at: nowUs(), bytes: byteLength(chunk), cpu: cpuUs() });
  }
  return emit.call(this, name, chunk, ...more);
};
const write = Socket.prototype.write;
Socket.prototype.write = function notedWrite(chunk, ...more) {
  if (noting && this !== process.stderr) {
    const kind = this === process.stdout ? 'stdout' : 'sockOut';
    events.push({ kind, at: nowUs(), bytes: byteLength(chunk), cpu: cpuUs() });
  }
  return write.call(this, chunk, ...more);
};
new PerformanceObserver((list) => {
  if (!noting) return;
  for (const e of list.getEntries()) {
    const kind = GC_KINDS[/** @type {any} */ (e).detail?.kind] ?? 'gc';
    events.push({ kind: `gc:${kind}`, at: perfToUs + e.startTime * 1000, dur: e.duration * 1000 });
  }
}).observe({ entryTypes: ['gc'] });

process.on('SIGUSR2', () => {
  if (!noting) {
    events = [];
    noting = true;
    return;
  }
  noting = false;
  writeFileSync(out, JSON.stringify(events));
  process.stderr.write('hopTimes: written\n');
});
process.argv = [process.argv[0], resolve(script), ...rest];
await import(pathToFileURL(resolve(script)).href);

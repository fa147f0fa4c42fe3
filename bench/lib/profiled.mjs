#!/usr/bin/env node
/**
 * Runs a Node script under the in-process CPU profiler, profiling only
 * between two SIGUSR2 signals (so start-up and warm-up stay out of it):
 *
 *   node bench/lib/profiled.mjs <out.cpuprofile> <script> [args…]
 *
 * The first SIGUSR2 starts the profiler, the second writes `<out.cpuprofile>`
 * (Chrome DevTools / speedscope) and prints `profiled: written` on stderr.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [out, script, ...rest] = process.argv.slice(2);
if (!out || !script) {
  process.stderr.write('usage: node bench/lib/profiled.mjs <out.cpuprofile> <script> [args…]\n');
  process.exit(2);
}
const session = new Session();
session.connect();
let running = false;
process.on('SIGUSR2', () => {
  if (!running) {
    running = true;
    session.post('Profiler.enable', () =>
      session.post('Profiler.setSamplingInterval', { interval: 100 }, () => session.post('Profiler.start')),
    );
    return;
  }
  running = false;
  session.post('Profiler.stop', (error, result) => {
    if (!error) writeFileSync(out, JSON.stringify(result.profile));
    process.stderr.write(`profiled: ${error ? `failed: ${error.message}` : 'written'}\n`);
  });
});
process.argv = [process.argv[0], resolve(script), ...rest];
await import(pathToFileURL(resolve(script)).href);

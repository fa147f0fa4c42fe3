#!/usr/bin/env node
/**
 * The page's own JavaScript per `tradescript_call` (bridge runtime + host SDK),
 * two builds taking turns, with the WebSocket's native work cut out: a real
 * request frame (captured from one call of table 1's read) is handed to the
 * relay socket's `onmessage` handler, and the answer is taken at
 * `socket.send`, 1,000 times per round, one call at a time, each build in its
 * own tab of one browser (the order flips every round). Each call still runs
 * everything the page does for it (frame reading, dispatcher, control, result
 * limits, redaction, activity feed, response check, frame queue); only the
 * socket's receive and send natives, the server and the client are left out.
 *
 *   TRADESCRIPT_BENCH_BASELINE_BIN=/path/to/before/dist/node/server/bin.js \
 *     flock /tmp/bench.lock node bench/pageJsAB.mjs [rounds=10] [--profile]
 *
 * A round's figure is the lower quartile of its 20 batches' mean µs per call
 * (a batch is 50 calls in one task), which a core lost to another process
 * moves less than the mean. It prints each round's figure, the medians, in how
 * many rounds this build was lower, and the paired median ratio this/baseline.
 * `cpuPerCall` and `abCalls` cannot resolve a few µs of page work per call from
 * their spread; this can. `--profile` then profiles this build's page over
 * 5,000 such calls (CDP Profiler, 50 µs sampling) and prints the on-CPU time
 * per call by source file and the hottest functions, named through the demo
 * build's source maps.
 */
import { join } from 'node:path';
import { printProfile, sourceMapped, summarizeProfile } from './lib/cpuProfile.mjs';
import { runRoundTrips } from './lib/measure.mjs';
import { median } from './lib/stats.mjs';
import { baselineBin, openTerminal, readCall } from './lib/tradescript.mjs';
import { importHarness } from './lib/typescript.mjs';

const flags = process.argv.slice(2);
const rounds = Number(flags.find((a) => !a.startsWith('--')) ?? 10);
const profile = flags.includes('--profile');
const PER_ROUND = 1000;
const BATCH = 50;
const PROFILED_CALLS = 5000;
const baseline = baselineBin();
if (!baseline) {
  console.error('bench/pageJsAB.mjs: set TRADESCRIPT_BENCH_BASELINE_BIN to the other build’s dist/node/server/bin.js');
  process.exit(2);
}

/** Keeps every WebSocket the page opens, so the relay socket's handler can be reached. */
const prepare = (page) =>
  page.addInitScript(() => {
    const Native = WebSocket;
    globalThis.WebSocket = class extends Native {
      constructor(...args) {
        super(...args);
        (globalThis.__benchSockets ??= []).push(this);
      }
    };
  });

/** Captures one real request frame off the relay socket. */
async function captureRequest(terminal) {
  await terminal.page.evaluate(() => {
    const socket = globalThis.__benchSockets.find((s) => s.readyState === 1 && s.url.includes('/relay'));
    const handler = socket.onmessage;
    globalThis.__benchRelay = { socket, handler, template: null };
    socket.onmessage = (event) => {
      // A full request frame, or (call contexts negotiated) one naming a context the page already holds.
      if (/^\{"t":"request(\.ref)?"/.test(String(event.data))) globalThis.__benchRelay.template = event.data;
      return handler.call(socket, event);
    };
  });
  await runRoundTrips(readCall(terminal), 3, 1);
  const ok = await terminal.page.evaluate(() => {
    const relay = globalThis.__benchRelay;
    relay.socket.onmessage = relay.handler;
    return typeof relay.template === 'string';
  });
  if (!ok) throw new Error('no request frame reached the relay socket');
}

/**
 * Runs `count` calls into the page's relay handler, one at a time, in batches
 * of {@link BATCH}; returns each batch's mean µs per call.
 */
function runCalls(page, count, tag) {
  return page.evaluate(
    async ({ count, tag, batch }) => {
      const { socket, handler, template } = globalThis.__benchRelay;
      // Flat strings, as `event.data` is: a replaced string is a rope until read.
      const texts = [];
      for (let i = 0; i < count; i++) {
        const id = `${tag}-${i}`;
        const text = template
          .replace(/"id":"[^"]*"/, `"id":"${id}"`)
          .replace(/"operationId":"([^"]*)"/, `"operationId":"$1-${id}"`);
        texts.push(JSON.parse(JSON.stringify(text)));
      }
      let expected = '';
      let answered = null;
      let last = '';
      const nativeSend = socket.send;
      // A heartbeat frame meanwhile still goes out on the real socket.
      socket.send = (text) => {
        if (!text.includes(expected)) return nativeSend.call(socket, text);
        last = text;
        answered();
      };
      const means = [];
      try {
        for (let b = 0; b < count; b += batch) {
          const end = Math.min(count, b + batch);
          const t0 = performance.now();
          for (let i = b; i < end; i++) {
            expected = `"id":"${tag}-${i}"`;
            await new Promise((resolve) => {
              answered = resolve;
              handler.call(socket, { data: texts[i] });
            });
          }
          means.push(((performance.now() - t0) * 1000) / (end - b));
          if (!last.includes('"ok":true')) throw new Error(`the page answered ${last.slice(0, 300)}`);
        }
      } finally {
        delete socket.send;
      }
      return means;
    },
    { count, tag, batch: BATCH },
  );
}

const lowerQuartile = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 4)];

const h = await importHarness();
const browser = await h.launchBrowser();
const builds = { before: baseline, after: undefined };
/** @type {Record<string, number[]>} µs per call, one figure per round */
const perCall = { before: [], after: [] };
try {
  /** @type {Record<string, any>} */
  const terminals = {};
  for (const [name, bin] of Object.entries(builds)) {
    terminals[name] = await openTerminal(h, browser, 'stdio', { prepare, ...(bin ? { bin } : {}) });
    await runRoundTrips(readCall(terminals[name]), 500, 1);
    await captureRequest(terminals[name]);
    await runCalls(terminals[name].page, 1000, `warm-${name}`);
  }
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 ? ['after', 'before'] : ['before', 'after']) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      perCall[name].push(lowerQuartile(await runCalls(terminals[name].page, PER_ROUND, `r${round}-${name}`)));
    }
  }
  if (profile) {
    const { page } = terminals.after;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
    await cdp.send('Profiler.start');
    await runCalls(page, PROFILED_CALLS, 'profiled');
    const { profile: written } = await cdp.send('Profiler.stop');
    const file = join(
      h.repoRoot,
      'bench/results',
      `pageJs-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`,
    );
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(h.repoRoot, 'bench/results'), { recursive: true });
    writeFileSync(file, JSON.stringify(written));
    const where = await sourceMapped(join(h.repoRoot, 'dist/demo/assets'));
    printProfile(
      `this build's page over ${PROFILED_CALLS} calls into its relay handler (${file})`,
      summarizeProfile(file, PROFILED_CALLS, 30, where),
    );
  }
  for (const terminal of Object.values(terminals)) await terminal.close();
} finally {
  await h.closeAll();
}
for (const name of ['before', 'after']) {
  console.log(`page JS µs per call, ${name.padEnd(6)} ${perCall[name].map((x) => x.toFixed(1)).join(' ')}`);
}
const lower = perCall.after.filter((x, i) => x < perCall.before[i]).length;
const ratio = median(perCall.after.map((x, i) => x / perCall.before[i]));
console.log(
  `page JS per call: median before ${median(perCall.before).toFixed(1)} µs, after ${median(perCall.after).toFixed(1)} µs; ` +
    `after lower in ${lower} of ${rounds} rounds; paired median ratio after/before ${ratio.toFixed(3)}`,
);

/**
 * Table 3, EVENTS (SPEC §7, §12): the highest rate the page can emit into a
 * polled `tradescript_subscribe` subscription with its heap flat (±1 MB over
 * 60 s; 10 s with --quick) and drop counts exact, and the page main thread's
 * CPU share while it does.
 *
 * What it needs from the product (until then it reports "not yet measurable"):
 *  - `tradescript_subscribe` in tools/list (start/poll/stop, SPEC §7);
 *  - a synthetic high-rate channel `bench.synthetic` on the session target, listed
 *    in the session context's `availableSubscriptions`;
 *  - the demo hook `window.__tradescriptDemo.synthetic`: `start(eventsPerSecond)`
 *    makes that channel's source emit at that rate on the page main thread to every
 *    active binding, and `stop()` ends it and resolves `{ emitted }`, the number of
 *    events handed to `emit` per binding since `start`.
 *
 * Method: for each rate of a ladder, start a subscription, start the emitter,
 * poll as fast as one client can (`afterSequence` = the last seen, limit 100)
 * for a step, stop the emitter, drain, stop. Exact means: emitted ===
 * lastSequence === received + the sum of every poll's droppedCount. Then a soak
 * at the highest rate that kept up (achieved ≥ 95 % of asked) and was exact:
 * page heap after a forced GC at its start and end (CDP), main-thread busy
 * share (CDP TaskDuration), and server RSS.
 */
import { heapAfterGc, mainThreadBusySeconds } from '../lib/mainThread.mjs';
import { roundAll } from '../lib/stats.mjs';
import { openTerminal } from '../lib/tradescript.mjs';
import { rssOf } from './footprint.mjs';

export const SYNTHETIC_CHANNEL = 'bench.synthetic';
const SESSION = { scope: 'session' };
const RATES = [10_000, 25_000, 50_000, 100_000, 200_000];
const MB = 1024 * 1024;

/** @param {import('../run.mjs').TableContext} ctx */
export async function runEvents(ctx) {
  const terminal = await openTerminal(ctx.h, ctx.browser, 'stdio');
  try {
    const missing = await whatIsMissing(terminal);
    if (missing) return { notMeasurable: missing };
    const cdp = await terminal.page.context().newCDPSession(terminal.page);
    await cdp.send('Performance.enable');
    const stepMs = ctx.quick ? 2_000 : 5_000;
    const soakMs = ctx.quick ? 10_000 : 60_000;

    const steps = [];
    for (const rate of RATES) {
      ctx.progress(`events: ${rate.toLocaleString('en-US')}/s for ${stepMs / 1000} s`);
      const step = await emitAndPoll(terminal, rate, stepMs);
      steps.push(step);
      if (!step.keptUp || !step.exact) break;
    }
    const sustained = steps.filter((s) => s.keptUp && s.exact).at(-1);
    const soakRate = sustained?.rate ?? RATES[0];
    ctx.progress(`events: soak at ${soakRate.toLocaleString('en-US')}/s for ${soakMs / 1000} s`);
    const soak = await emitAndPoll(terminal, soakRate, soakMs, { cdp, serverPid: terminal.serverPid });

    const row = (label, s) => [
      label,
      s.rate,
      Math.round(s.achievedPerSec),
      Math.round(s.receivedPerSec),
      s.emitted,
      s.received,
      s.dropped,
      s.exact ? 'yes' : 'NO',
      s.heapDeltaMB ?? '',
      s.mainThreadShare === undefined ? '' : `${(s.mainThreadShare * 100).toFixed(0)} %`,
    ];
    return {
      header: ['run', 'asked/s', 'emitted/s', 'polled/s', 'emitted', 'received', 'dropped', 'exact', 'heap Δ MB', 'main thread'],
      rows: [...steps.map((s) => row(`step ${stepMs / 1000} s`, s)), row(`soak ${soakMs / 1000} s`, soak)],
      checks: [
        {
          name: 'events/s into a polled subscription (soak)',
          measured: soak.achievedPerSec,
          limit: 50_000,
          unit: '/s',
          higherIsBetter: true,
          basis: '50,000/s',
        },
        { name: 'page heap change over the soak', measured: Math.abs(soak.heapDeltaMB), limit: 1, unit: ' MB', basis: '±1 MB' },
        {
          name: 'drop accounting error (soak)',
          measured: Math.abs(soak.emitted - soak.received - soak.dropped) + (soak.lastSequence === soak.emitted ? 0 : 1),
          limit: 0,
          unit: ' events',
          basis: 'exact',
        },
      ],
      notes: [
        `one poller (afterSequence = last seen, limit 100); exact: emitted = lastSequence = received + Σ droppedCount; ` +
          `heap: page main thread after a forced GC, soak start vs end; main thread: CDP TaskDuration ÷ wall; ` +
          `server RSS ${fmtMB(soak.serverRssStartMB)} → ${fmtMB(soak.serverRssEndMB)} MB.`,
      ],
      data: roundAll({ steps, soak }),
    };
  } finally {
    await terminal.close();
  }
}

function fmtMB(v) {
  return Number.isFinite(v) ? v.toFixed(1) : '?';
}

/** Why the table cannot be measured yet, or null. */
async function whatIsMissing(terminal) {
  if (!terminal.tools.includes('tradescript_subscribe')) return 'tradescript_subscribe is not in tools/list yet (SPEC §7)';
  const context = await terminal.callTool('tradescript_get_context', { sessionId: terminal.sessionId, target: SESSION });
  const channels = context.structuredContent?.data?.availableSubscriptions ?? [];
  if (!channels.some((c) => c.channelId === SYNTHETIC_CHANNEL)) {
    const seen = channels.map((c) => c.channelId).join(', ') || 'none';
    return `no ${SYNTHETIC_CHANNEL} channel on the session target (availableSubscriptions: ${seen}); the demo needs a synthetic high-rate source`;
  }
  const hook = await terminal.page.evaluate(() => typeof window.__tradescriptDemo?.synthetic?.start === 'function');
  if (!hook) return 'the demo has no window.__tradescriptDemo.synthetic.start/stop hook to drive the synthetic source';
  return null;
}

/**
 * One run: subscribe, emit at `rate` for `ms` while polling, stop, drain, unsubscribe.
 * With `soak`, also heap, main-thread share and server RSS.
 */
async function emitAndPoll(terminal, rate, ms, soak) {
  const sub = async (args) => {
    const result = await terminal.callTool('tradescript_subscribe', args);
    if (result.isError) throw new Error(`tradescript_subscribe ${args.action}: ${result.structuredContent?.error?.code}`);
    return result.structuredContent.data;
  };
  const started = await sub({
    action: 'start',
    sessionId: terminal.sessionId,
    target: SESSION,
    bindings: [{ channelId: SYNTHETIC_CHANNEL, bindingId: 'bench' }],
  });
  const subscriptionId = started.subscriptionId;
  const tally = { received: 0, dropped: 0, last: 0, lastSequence: 0, ordered: true };
  const poll = async () => {
    const page = await sub({ action: 'poll', subscriptionId, afterSequence: tally.last, limit: 100 });
    for (const event of page.events) {
      if (event.sequence <= tally.last) tally.ordered = false;
      tally.last = event.sequence;
      tally.received++;
    }
    tally.dropped += page.droppedCount;
    if (page.events.length === 0 && page.droppedBeforeSequence !== null) tally.last = page.droppedBeforeSequence - 1;
    tally.lastSequence = page.lastSequence;
    return page;
  };

  const measure = {};
  if (soak) {
    measure.heapStart = await heapAfterGc(soak.cdp);
    measure.busyStart = await mainThreadBusySeconds(soak.cdp);
    measure.rssStart = rssOf(soak.serverPid);
  }
  const t0 = performance.now();
  await terminal.page.evaluate((r) => window.__tradescriptDemo.synthetic.start(r), rate);
  while (performance.now() - t0 < ms) await poll();
  const { emitted } = await terminal.page.evaluate(() => window.__tradescriptDemo.synthetic.stop());
  const wallMs = performance.now() - t0;
  if (soak) {
    measure.busyEnd = await mainThreadBusySeconds(soak.cdp);
    measure.heapEnd = await heapAfterGc(soak.cdp);
    measure.rssEnd = rssOf(soak.serverPid);
  }
  // Drain: the last events travel page → worker → server after stop.
  const drainUntil = performance.now() + 5_000;
  while (tally.last < emitted && performance.now() < drainUntil) {
    const page = await poll();
    if (page.events.length === 0 && page.lastSequence >= emitted && tally.last >= page.lastSequence) break;
  }
  await sub({ action: 'stop', subscriptionId });

  const exact = tally.ordered && tally.lastSequence === emitted && tally.received + tally.dropped === emitted;
  return {
    rate,
    ms: wallMs,
    emitted,
    achievedPerSec: (emitted * 1000) / wallMs,
    keptUp: (emitted * 1000) / wallMs >= 0.95 * rate,
    received: tally.received,
    receivedPerSec: (tally.received * 1000) / wallMs,
    dropped: tally.dropped,
    lastSequence: tally.lastSequence,
    exact,
    ...(soak && {
      heapDeltaMB: (measure.heapEnd - measure.heapStart) / MB,
      heapStartMB: measure.heapStart / MB,
      heapEndMB: measure.heapEnd / MB,
      mainThreadShare: (measure.busyEnd - measure.busyStart) / (wallMs / 1000),
      serverRssStartMB: measure.rssStart / MB,
      serverRssEndMB: measure.rssEnd / MB,
    }),
  };
}

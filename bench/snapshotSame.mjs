/**
 * Does a change keep the terminal snapshot's pixels (SPEC §8)? Two builds'
 * demos, each in its own tab of one Chromium, on a frozen page: the clock
 * fixed (`page.clock.setFixedTime`) and the demo's intervals (market ticks,
 * header clock, FX quote) never started, so both tabs show the same DOM.
 * (The header's session pill, random per pairing, is set to one text in both.)
 * Each tab's `terminal` widget is captured through `tradescript_snapshot`
 * `[captures]` times; every capture is compared pixel by pixel with the
 * baseline's first.
 *
 *   TRADESCRIPT_BENCH_BASELINE_BIN=/other/dist/node/server/bin.js node bench/snapshotSame.mjs [captures] [widgetId]
 *
 * Prints per capture: pixels that differ, the largest channel difference.
 * Without a baseline both tabs run this build (a check of the check).
 */
import { baselineBin } from './lib/tradescript.mjs';
import { importHarness } from './lib/typescript.mjs';
import { openTerminal } from './lib/tradescript.mjs';
import { comparePngs as compare } from './lib/pixelDiff.mjs';

const captures = Number(process.argv[2] ?? 3);
const widgetId = process.argv[3] ?? 'terminal';
const FIXED_TIME = new Date('2026-12-04T12:00:00Z');
const h = await importHarness();
const browser = await h.launchBrowser();

/** The demo's timers started with setInterval never run: its market and clocks stand still. */
async function freeze(page) {
  await page.clock.setFixedTime(FIXED_TIME);
  await page.addInitScript(() => {
    let next = 1e6;
    window.setInterval = /** @type {any} */ (() => ++next);
  });
}

async function open(bin) {
  return openTerminal(h, browser, 'stdio', { viewport: { width: 1280, height: 720 }, bin, prepare: freeze });
}

async function shoot(terminal) {
  const result = await terminal.callTool('tradescript_snapshot', {
    sessionId: terminal.sessionId,
    target: { scope: 'widget', widgetId },
  });
  const image = result.content.find((c) => c.type === 'image');
  if (!image) throw new Error(`no image: ${JSON.stringify(result.structuredContent?.error)}`);
  return image.data;
}

const base = await open(baselineBin() ?? undefined);
const ours = await open(undefined);
try {
  await new Promise((resolve) => setTimeout(resolve, 1500));
  // The one thing that differs between two tabs: each pairing's random session id, shown in the header.
  for (const t of [base, ours]) {
    await t.page.evaluate(() => {
      const pill = document.querySelector('[data-testid="bridge-session"]');
      if (pill) pill.textContent = 's_same00';
    });
  }
  if (process.env.SAME_FLAGS)
    await ours.page.evaluate((f) => Object.assign(globalThis, { __tsx: f }), JSON.parse(process.env.SAME_FLAGS));
  if (process.env.SAME_PROBE) {
    const probe = (t) =>
      t.page.evaluate(([x, y]) => {
        const r = document.querySelector('[data-testid="terminal"]').getBoundingClientRect();
        const e = document.elementFromPoint(r.left + x, r.top + y);
        return `${e?.outerHTML.slice(0, 200)} | ${e?.textContent}`;
      }, JSON.parse(process.env.SAME_PROBE));
    console.log('base:', await probe(base));
    console.log('ours:', await probe(ours));
  }
  const reference = await shoot(base);
  for (let i = 0; i < captures; i++) {
    const [b, o] = [await shoot(base), await shoot(ours)];
    console.log(`capture ${i}: baseline vs its first ${JSON.stringify(await compare(ours.page, reference, b))}`);
    console.log(
      `capture ${i}: this build vs baseline's first ${JSON.stringify(await compare(ours.page, reference, o))}`,
    );
  }
} finally {
  await base.close();
  await ours.close();
  await h.closeAll();
}

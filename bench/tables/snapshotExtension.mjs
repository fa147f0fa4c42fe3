/**
 * Table 4b, SNAPSHOT THROUGH THE EXTENSION (SPEC §8 "In the extension", §12):
 * the same three targets as table 4 (the 1280×720 `terminal` widget, the
 * blotter, the main chart) in the same 1280×720 viewport, captured with
 * `tradescript_snapshot` from an MCP client (stdio) while the demo is linked
 * through the Chrome extension and the person has granted `activeTab` (the
 * action run on the tab): the extension's service worker then answers with
 * `chrome.tabs.captureVisibleTab` cropped to the target
 * (extension/src/sw/visibleCapture.ts). Against Chromium's
 * `Page.captureScreenshot` of the same clip in the same tab, trials
 * interleaved as in table 4; the same limits (≤ 1.5 × CDP, longest main-thread
 * task ≤ 50 ms).
 *
 * The extension falls back to the page's own capture without a word when the
 * fast path cannot serve, so the page counts its SDK's captures: a row whose
 * snapshots the page captured even once reads `not yet measurable: …`, never
 * page-capture figures under the extension's name. The extension's captures
 * are kept under Chromium's quota (2 a second), untimed.
 */
import { observeLongTasks, traceLongestTaskOn } from '../lib/mainThread.mjs';
import { openExtensionDemo, extensionDir } from '../lib/extensionDemo.mjs';
import { CAPTURE_VISIBLE_TAB_PER_SECOND, rateGate, whyNotFastPath } from '../lib/fastPath.mjs';
import { comparePngs } from '../lib/pixelDiff.mjs';
import { roundAll } from '../lib/stats.mjs';
import { setDemoMarket } from '../lib/tradescript.mjs';
import { checksOf, HEADER, measureInterleaved, rowsOf, VIEWPORT, WIDGETS, widgetRect } from './snapshot.mjs';
import { cdpScreenshot, snapshotOf, whyOursCannotCapture } from './snapshotMethods.mjs';

const LABEL = 'tradescript_snapshot via the extension (visible-tab capture)';

/** @param {import('../run.mjs').TableContext} ctx */
export async function runSnapshotExtension(ctx) {
  const dir = extensionDir(ctx.h);
  if (!dir) return { notMeasurable: 'dist/extension is not built (npm run build builds it)' };
  ctx.progress('snapshot (extension): pairing the extension');
  const demo = await openExtensionDemo(ctx.h, dir, { viewport: VIEWPORT });
  try {
    await demo.grantActiveTab();
    await observeLongTasks(demo.page);
    const cdp = await demo.context.newCDPSession(demo.page);
    const sdkCaptures = await demo.fx.countSdkCaptures(demo.page);
    // Chromium's quota, with a margin: a capture over it would fail and fall back to the page's.
    const gate = rateGate(CAPTURE_VISIBLE_TAB_PER_SECOND, { marginMs: 100 });
    const trace = (page, body) => traceLongestTaskOn(cdp, page, body);
    const results = [];
    for (const widget of WIDGETS) {
      const rect = await widgetRect(demo.page, widget.selector);
      if (!rect) {
        results.push({ widget, missing: `the demo has no ${widget.selector} element to capture` });
        continue;
      }
      const ours = viaExtension(ctx, demo, widget, gate, await whyOursCannotCapture(demo, widget));
      const anchor = cdpScreenshot(ctx, { widget, rect, cdp, mainPage: demo.page });
      ctx.progress(`snapshot (extension): ${widget.widgetId}`);
      const before = await sdkCaptures();
      const measured = await measureInterleaved(ctx, [ours, anchor], trace);
      const same = ours.missing ? null : await sameAsCdp(demo, ours, cdp, rect);
      const sdk = (await sdkCaptures()) - before;
      // The first capture, the trials, the traced one and the pixel check's.
      const captures = ours.missing ? 0 : ours.trials + 3;
      let why = ours.missing ?? whyNotFastPath({ captures, sdkCaptures: sdk });
      if (why && !ours.missing)
        why = whyNotFastPath({ captures, sdkCaptures: sdk, diagnosis: await diagnose(demo, widget, gate) });
      if (why && !ours.missing) {
        // Page-capture figures must not stand under the extension's name.
        ours.missing = why;
        delete measured.ours;
      }
      results.push({
        widget,
        rect,
        methods: [ours, anchor],
        measured,
        fastPath: { captures, sdkCaptures: sdk, served: why === null, image: ours.image },
        same,
      });
    }
    return report(results);
  } finally {
    await demo.close();
  }
}

/**
 * `tradescript_snapshot` of the widget's target, as an MCP client asks for
 * it; keeps the last image's size and whether it was scaled.
 * @param {import('../run.mjs').TableContext} ctx
 * @param {import('../lib/extensionDemo.mjs').ExtensionDemo} demo
 */
function viaExtension(ctx, demo, widget, gate, missing) {
  const method = {
    id: 'ours',
    label: LABEL,
    page: demo.page,
    trials: ctx.quick ? 5 : 9,
    missing,
    /** @type {{ width: number, height: number, scaled: boolean } | null} */
    image: null,
    before: () => gate.wait(),
    run: async () => {
      const { data, base64, bytes } = await snapshotOf(demo, widget);
      method.image = { width: data.width, height: data.height, scaled: data.scaled === true };
      return { bytes, data: base64 };
    },
  };
  return method;
}

/**
 * One more capture each way with the demo's market paused (nothing moves
 * between the two), compared pixel by pixel: the crop shows the clip CDP
 * shoots. Information for the notes, not a check.
 */
async function sameAsCdp(demo, ours, cdp, rect) {
  await setDemoMarket(demo.page, false);
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    await ours.before();
    const mine = await ours.run();
    const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', clip: { ...rect, scale: 1 } });
    if (!mine.data) return null;
    return await comparePngs(demo.page, mine.data, data);
  } finally {
    await setDemoMarket(demo.page, true);
  }
}

/** What stood in the fast path's way, as far as the page and the extension can tell. */
async function diagnose(demo, widget, gate) {
  const seen = [];
  const page = await demo.page.evaluate((selector) => {
    const r = document.querySelector(selector)?.getBoundingClientRect();
    return {
      visibility: document.visibilityState,
      rect: r ? { x: r.x, y: r.y, right: r.right, bottom: r.bottom } : null,
      viewport: { width: innerWidth, height: innerHeight },
    };
  }, widget.selector);
  if (page.visibility !== 'visible') seen.push(`the tab is ${page.visibility}`);
  const { rect, viewport } = page;
  if (rect && (rect.x < -1 || rect.y < -1 || rect.right > viewport.width + 1 || rect.bottom > viewport.height + 1))
    seen.push(`the target is not whole in the ${viewport.width}×${viewport.height} viewport`);
  const worker = demo.serviceWorker();
  if (!worker) seen.push('no service worker of the extension is running');
  else {
    await gate.wait();
    const origin = new URL(demo.page.url()).origin;
    seen.push(
      await worker.evaluate(async (prefix) => {
        const tab = (await chrome.tabs.query({})).find((t) => t.url?.startsWith(prefix));
        if (!tab) return 'the extension sees no tab showing the demo';
        const window = await chrome.windows.get(tab.windowId);
        const state = `the demo's tab ${tab.active ? 'is' : 'is not'} active, its window ${window.state}`;
        try {
          await chrome.tabs.captureVisibleTab(tab.windowId, { format: 'png' });
          return `${state}; captureVisibleTab works when asked now (a passing refusal: over its quota of 2 a second?)`;
        } catch (error) {
          return `${state}; captureVisibleTab: ${error instanceof Error ? error.message : String(error)}`;
        }
      }, origin),
    );
  }
  return seen.join('; ');
}

function rowsOfResult(result) {
  const rows = rowsOf(result);
  const fast = result.fastPath;
  if (!fast?.served) return rows;
  const image = fast.image;
  const size = image ? `, ${image.width}×${image.height}${image.scaled ? ' scaled' : ''}` : '';
  // The note column of the extension's row: what the page saw.
  rows[0][rows[0].length - 1] = `visible tab ${fast.captures}/${fast.captures}${size}`;
  return rows;
}

function report(results) {
  const notes = [];
  for (const r of results.filter((x) => x.rect)) {
    const fast = r.fastPath;
    const path = fast.served
      ? `the page's SDK capture ran for none of its ${fast.captures} snapshots (the visible tab served them all)`
      : fast.captures > 0
        ? `the page's SDK capture ran for ${fast.sdkCaptures} of its ${fast.captures} snapshots`
        : 'no snapshot ran';
    const same = r.same
      ? r.same.differ === undefined
        ? `; pixels vs CDP's clip, market paused: sizes differ (${r.same.size})`
        : `; pixels vs CDP's clip, market paused: ${r.same.differ} of ${pixelCount(r.same.size)} differ (max Δ ${r.same.max})`
      : '';
    notes.push(
      `${r.widget.widgetId}: ${r.widget.selector} at ${Math.round(r.rect.width)}×${Math.round(r.rect.height)} ` +
        `in a ${VIEWPORT.width}×${VIEWPORT.height} viewport; ${path}${same}.`,
    );
  }
  notes.push(
    'setup as e2e/extension.test.ts: dist/extension unpacked in a persistent profile, the real CLI demo --stdio, the ' +
      'popup paired with the pairing code and the demo allowed, the demo in ?bridge=extension, activeTab granted by ' +
      "the action (Extensions.triggerAction); which path served is read from the page (countSdkCaptures wraps the SDK's " +
      "capture). Wall from the MCP client; the extension's captures start ≥ " +
      `${Math.round(1000 / CAPTURE_VISIBLE_TAB_PER_SECOND) + 100} ms apart (captureVisibleTab's quota), untimed. ` +
      'Columns as table 4.',
  );
  return {
    header: HEADER,
    rows: results.flatMap(rowsOfResult),
    checks: results.flatMap((r) => checksOf(r, `${r.widget.widgetId} via the extension`)),
    notes,
    data: roundAll({
      widgets: results.map((r) => ({
        widget: r.widget,
        rect: r.rect ?? null,
        missing: r.missing ?? null,
        fastPath: r.fastPath ?? null,
        sameAsCdp: r.same ?? null,
        measured: r.measured ?? null,
      })),
    }),
  };
}

const pixelCount = (size) => {
  const [w, h] = String(size).split('×').map(Number);
  return Number.isFinite(w * h) ? (w * h).toLocaleString('en-US') : '?';
};

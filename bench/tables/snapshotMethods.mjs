/**
 * The capture methods table 4 times for one widget: `tradescript_snapshot`
 * (ours) in a build's tab, and, in this build's tab only, the anchors:
 * html-to-image `toPng` on the main thread and Chromium's
 * `Page.captureScreenshot` of the widget's clip.
 */

/**
 * @param {import('../run.mjs').TableContext} ctx
 * @param {{ terminal: any, build: string, widget: { widgetId: string, selector: string, target?: object }, rect: any, cdp: any, missing: string | null, mainPage: any }} setup
 */
export function captureMethods(ctx, setup) {
  const { terminal, widget } = setup;
  const compare = setup.build !== 'this build';
  const ours = {
    id: compare ? 'oursCompare' : 'ours',
    label: compare ? 'tradescript_snapshot, compare build' : 'tradescript_snapshot (ours), stdio',
    page: terminal.page,
    trials: ctx.quick ? 5 : 9,
    missing: setup.missing,
    run: async () => ({ bytes: (await snapshotOf(terminal, widget)).bytes }),
  };
  if (compare) return [ours];
  return [ours, htmlToImage(ctx, setup), cdpScreenshot(ctx, setup)];
}

function htmlToImage(ctx, setup) {
  return {
    id: 'htmlToImage',
    label: 'html-to-image toPng, main thread',
    page: setup.mainPage,
    trials: ctx.quick ? 1 : 3,
    missing: null,
    run: async () => {
      const length = await setup.mainPage.evaluate(async (selector) => {
        const url = await /** @type {any} */ (window).htmlToImage.toPng(document.querySelector(selector));
        return url.length;
      }, setup.widget.selector);
      return { bytes: Math.round((length * 3) / 4) };
    },
  };
}

/** Chromium's `Page.captureScreenshot` of the widget's clip, through `setup.cdp` (a CDP session of `setup.mainPage`). */
export function cdpScreenshot(ctx, setup) {
  return {
    id: 'cdp',
    label: 'Chromium Page.captureScreenshot (CDP)',
    page: setup.mainPage,
    trials: ctx.quick ? 5 : 15,
    missing: null,
    run: async () => {
      const { data } = await setup.cdp.send('Page.captureScreenshot', {
        format: 'png',
        clip: { ...setup.rect, scale: 1 },
      });
      return { bytes: Buffer.byteLength(data, 'base64') };
    },
  };
}

/**
 * One `tradescript_snapshot` of the row's target through `terminal`'s MCP
 * client (anything with `callTool` and `sessionId`); throws on an error
 * envelope. Its snapshot data, the image's base64 and its decoded bytes.
 * @param {{ sessionId: string, callTool: (name: string, args: Record<string, unknown>) => Promise<any> }} terminal
 */
export async function snapshotOf(terminal, widget) {
  const result = await terminal.callTool('tradescript_snapshot', {
    sessionId: terminal.sessionId,
    target: targetOf(widget),
  });
  if (result.isError) throw new Error(`tradescript_snapshot: ${result.structuredContent?.error?.code ?? 'error'}`);
  const image = result.content.find((c) => c.type === 'image');
  return {
    data: result.structuredContent?.data ?? {},
    base64: image?.data,
    bytes: image ? Buffer.byteLength(image.data, 'base64') : 0,
  };
}

/** The target a row captures: a widget's, or the one it names (a chart). */
export const targetOf = (widget) => widget.target ?? { scope: 'widget', widgetId: widget.widgetId };

/** Why `tradescript_snapshot` of the row's target cannot be measured in this terminal yet, or null. */
export async function whyOursCannotCapture(terminal, widget) {
  const target = targetOf(widget);
  const same = (t) => t.scope === target.scope && t.widgetId === target.widgetId && t.chartId === target.chartId;
  if (!terminal.tools.includes('tradescript_snapshot')) return 'tradescript_snapshot is not in tools/list yet';
  const context = await terminal.callTool('tradescript_get_context', {
    sessionId: terminal.sessionId,
    target: { scope: 'session' },
  });
  const entry = (context.structuredContent?.data?.availableTargets ?? []).find((t) => same(t.target));
  if (!entry) return `the demo lists no ${widget.widgetId} target`;
  if (entry.renderable !== true) return `the demo's ${widget.widgetId} target is not renderable yet (availableTargets)`;
  return null;
}

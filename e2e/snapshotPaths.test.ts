/**
 * Which path a snapshot takes in the demo terminal without the extension
 * (SPEC §8, §12), through the real path: an MCP client over stdio, the CLI,
 * the bridge worker and the page in headless Chromium. A chart target is the
 * chart's own canvases (lightweight-charts `takeScreenshot()`): no snapshot
 * engine loads and no canvas is serialized. The terminal widget holds both
 * charts: its DOM capture draws each chart from its canvas pixels (no chart
 * canvas is read as a data URL, which DOM serialization of a canvas does).
 * Pixels are compared with Chromium's own screenshot of the same element,
 * over a coarse grid with a tolerance (the demo's market moves the last
 * candle between two captures). The extension's visible-tab path is tested in
 * extension.test.ts; speed is measured by `npm run bench` (table 4), never here.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SnapshotData, Target } from '../src/protocol/index.js';
import { callTool, connectStdioClient, launchBrowser, newPage, pairPage, type ToolCall } from './harness/index.js';

const MAIN: Target = { scope: 'chart', chartId: 'btc-main' };
const TERMINAL: Target = { scope: 'widget', widgetId: 'terminal' };
const MAIN_CANVAS = '[data-testid="panel-chart-btc-main"] .chart-canvas';
const TERMINAL_ELEMENT = '[data-testid="terminal"]';
/** The chunks of the DOM capture path and its engines, as the demo's build names them. */
const DOM_PATH_CHUNK = /\/(domCapture|snapdom|es)-[\w-]+\.js$/;
/** Side of the grid both images are drawn to before comparing. */
const GRID = { width: 160, height: 90 };

let browser: Browser;
let page: Page;
let errors: string[];
let requested: string[];
let call: <T>(name: string, args: Record<string, unknown>) => Promise<ToolCall<T>>;
let sessionId: string;

beforeAll(async () => {
  browser = await launchBrowser();
  const handle = await connectStdioClient(['demo', '--stdio']);
  call = (name, args) => callTool(handle.client, name, args);
  ({ page, errors } = await newPage(browser));
  await page.setViewportSize({ width: 1280, height: 720 });
  requested = [];
  page.on('request', (request) => requested.push(new URL(request.url()).pathname));
  // Counts reads of chart canvases as data URLs, installed before the demo's scripts run.
  await page.addInitScript(() => {
    const seen = { chartCanvasDataUrls: 0 };
    (window as unknown as { __snapshotPaths: typeof seen }).__snapshotPaths = seen;
    const original = HTMLCanvasElement.prototype.toDataURL;
    HTMLCanvasElement.prototype.toDataURL = function (this: HTMLCanvasElement, ...args: [string?, number?]) {
      if (this.closest('.chart-canvas')) seen.chartCanvasDataUrls += 1;
      return original.apply(this, args);
    };
  });
  sessionId = await pairPage(page, handle.ready.pairUrl!);
});

afterAll(async () => {
  await browser?.close();
});

async function snapshot(target: Target): Promise<{ data: SnapshotData; base64: string }> {
  const result = await call<SnapshotData>('tradescript_snapshot', { sessionId, target });
  expect(result.envelope.error ?? null).toBeNull();
  const image = result.result.content.find((item) => item.type === 'image') as { data: string } | undefined;
  expect(image).toBeDefined();
  return { data: result.envelope.data!, base64: image!.data };
}

const chartCanvasDataUrls = (): Promise<number> =>
  page.evaluate(
    () =>
      (window as unknown as { __snapshotPaths: { chartCanvasDataUrls: number } }).__snapshotPaths.chartCanvasDataUrls,
  );

/**
 * The share of grid cells where two PNGs agree (each channel within 40),
 * each drawn to the grid from its region (CSS px of the image at ratio 1 when
 * omitted: the whole image).
 */
async function agreement(
  ours: { base64: string; region?: { x: number; y: number; width: number; height: number } },
  chromium: { base64: string },
): Promise<number> {
  return page.evaluate(
    async ({ a, b, grid }) => {
      const pixels = async (base64: string, region?: { x: number; y: number; width: number; height: number }) => {
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
        const canvas = new OffscreenCanvas(grid.width, grid.height);
        const context = canvas.getContext('2d')!;
        const r = region ?? { x: 0, y: 0, width: bitmap.width, height: bitmap.height };
        context.drawImage(bitmap, r.x, r.y, r.width, r.height, 0, 0, grid.width, grid.height);
        return context.getImageData(0, 0, grid.width, grid.height).data;
      };
      const [pa, pb] = [await pixels(a.base64, a.region), await pixels(b.base64)];
      let same = 0;
      for (let i = 0; i < pa.length; i += 4) {
        if ([0, 1, 2].every((c) => Math.abs(pa[i + c]! - pb[i + c]!) <= 40)) same += 1;
      }
      return same / (pa.length / 4);
    },
    { a: ours, b: chromium, grid: GRID },
  );
}

/** Chromium's own screenshot of an element (the compositor's pixels), as base64 PNG. */
async function chromiumShot(selector: string): Promise<string> {
  return (await page.locator(selector).screenshot({ type: 'png', animations: 'allow' })).toString('base64');
}

describe('SPEC §8 §12 snapshot paths in the demo terminal (page capture, real Chromium)', () => {
  it("SPEC §8 a chart snapshot is the chart's own canvases: no snapshot engine loads, no canvas is serialized, its pixels are what Chromium shows", async () => {
    const shot = await snapshot(MAIN);
    const shown = await chromiumShot(MAIN_CANVAS);
    const box = (await page.locator(MAIN_CANVAS).boundingBox())!;
    expect(shot.data).toMatchObject({ mimeType: 'image/png', target: MAIN });
    // The chart's canvases are sized in whole pixels; its box may end on a fraction.
    expect(Math.abs(shot.data.width - box.width)).toBeLessThanOrEqual(1);
    expect(Math.abs(shot.data.height - box.height)).toBeLessThanOrEqual(1);
    expect(requested.filter((path) => DOM_PATH_CHUNK.test(path))).toEqual([]);
    expect(await chartCanvasDataUrls()).toBe(0);
    expect(await agreement({ base64: shot.base64 }, { base64: shown })).toBeGreaterThan(0.95);
  });

  it("SPEC §8 the terminal widget draws each chart from its canvas pixels into the DOM capture; the chart's region is what Chromium shows", async () => {
    const shot = await snapshot(TERMINAL);
    expect(requested.some((path) => DOM_PATH_CHUNK.test(path))).toBe(true);
    expect(await chartCanvasDataUrls()).toBe(0);
    const terminal = (await page.locator(TERMINAL_ELEMENT).boundingBox())!;
    const chart = (await page.locator(MAIN_CANVAS).boundingBox())!;
    const ratio = shot.data.width / terminal.width;
    const region = {
      x: (chart.x - terminal.x) * ratio,
      y: (chart.y - terminal.y) * ratio,
      width: chart.width * ratio,
      height: chart.height * ratio,
    };
    const shown = await chromiumShot(MAIN_CANVAS);
    expect(await agreement({ base64: shot.base64, region }, { base64: shown })).toBeGreaterThan(0.95);
    const whole = await chromiumShot(TERMINAL_ELEMENT);
    expect(await agreement({ base64: shot.base64 }, { base64: whole })).toBeGreaterThan(0.95);
    expect(errors).toEqual([]);
  });
});

/**
 * What one layer of a DOM capture costs to turn into pixels (SPEC §8, §12): the
 * SVG image snapdom builds for each layer of a widget is decoded and drawn
 * again, alone, in the demo's own page. `node bench/layerDecode.mjs [rounds=12] [widgetId=terminal]`
 * captures the widget once through the MCP client with a hook on the page's
 * `encodeURIComponent` (snapdom makes each layer's data URL with it), keeping
 * every layer's SVG text, then for each layer, `rounds` times, decodes it as
 * snapdom does (an `<img>` in a hidden frame, `decoding="sync"`, the SVG as a
 * data URL, `decode()`) and draws it into a canvas of its size. A comment
 * that changes every time keeps the image cache from answering. It prints per
 * layer the median decode wall, the longest main-thread task inside the decode
 * (a MessageChannel ping loop runs throughout: the longest gap between two
 * pings), the draw, and the longest task over decode and draw together. The
 * largest layer is also decoded as variants that say where its cost lies:
 * without snapdom's per-tag baseline rule (the first of its `<style>`),
 * without any `font-family` declaration, without its `<style>` at all,
 * without its text (every text node emptied, the style kept), and an empty SVG
 * of the same size. The variants are measurements, not captures:
 * their pixels differ.
 */
import { median } from './lib/stats.mjs';
import { importHarness } from './lib/typescript.mjs';
import { openTerminal } from './lib/tradescript.mjs';

const rounds = Number(process.argv[2] ?? 12);
const widgetId = process.argv[3] ?? 'terminal';
const h = await importHarness();
const browser = await h.launchBrowser();
const t = await openTerminal(h, browser, 'stdio', {
  viewport: { width: 1280, height: 720 },
  prepare: (page) =>
    page.addInitScript(() => {
      const encode = globalThis.encodeURIComponent;
      globalThis.__layerSvgs = null;
      globalThis.encodeURIComponent = function (text) {
        if (globalThis.__layerSvgs && typeof text === 'string' && text.startsWith('<svg'))
          globalThis.__layerSvgs.push(text);
        return encode(text);
      };
    }),
});
const snapshot = () =>
  t.callTool('tradescript_snapshot', { sessionId: t.sessionId, target: { scope: 'widget', widgetId } });
await snapshot();
// Forced fresh: a layer whose clone is still valid comes from the engine's memo and builds no SVG.
await t.page.evaluate(() => {
  globalThis.__layerSvgs = [];
  document.body.style.setProperty('--layer-decode-probe', String(Math.random()));
});
await snapshot();
const svgs = await t.page.evaluate(() => globalThis.__layerSvgs);
if (svgs.length === 0) throw new Error('the capture built no layer SVG');

const largest = svgs.reduce((a, b) => (b.length > a.length ? b : a));
const css = largest.match(/<style[^>]*>([\s\S]*?)<\/style>/)?.[1] ?? '';
const withCss = (edit) => largest.replace(css, () => edit(css));
const head = largest.match(/<svg\b[^>]*>/)[0];
const jobs = [
  ...svgs.map((svg, i) => ({ name: `layer ${i}`, svg })),
  { name: 'largest, no baseline rule', svg: withCss((c) => c.replace(/^[^{]*\{[^}]*\}/, '')) },
  { name: 'largest, no font-family', svg: withCss((c) => c.replace(/font-family:[^;]*;/g, '')) },
  { name: 'largest, no <style>', svg: withCss(() => '') },
  {
    name: 'largest, no text',
    svg: largest
      .replace(css, () => '<!--style-->')
      .replace(/>([^<]+)</g, (all, text) => (text.trim() ? '><' : all))
      .replace('<!--style-->', () => css),
  },
  {
    name: 'empty SVG of its size',
    svg: `${head}<foreignObject x="0" y="0" width="100%" height="100%"></foreignObject></svg>`,
  },
];

const rows = await t.page.evaluate(
  async ({ jobs, rounds }) => {
    const frame = document.createElement('iframe');
    frame.style.cssText = 'position:absolute;left:-9999px;top:0;width:0;height:0;border:0;visibility:hidden';
    document.body.appendChild(frame);
    const sizeOf = (svg) => {
      const tag = svg.match(/<svg\b[^>]*>/)[0];
      return { w: Number(tag.match(/\bwidth="([\d.]+)/)[1]), h: Number(tag.match(/\bheight="([\d.]+)/)[1]) };
    };
    const pause = () => new Promise((resolve) => setTimeout(resolve, 20));
    async function once(svg, round) {
      const { w, h } = sizeOf(svg);
      const canvas = document.createElement('canvas');
      canvas.width = w;
      canvas.height = h;
      const context = canvas.getContext('2d');
      let last = performance.now();
      let gap = 0;
      let pinging = true;
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        const now = performance.now();
        gap = Math.max(gap, now - last);
        last = now;
        if (pinging) channel.port2.postMessage(0);
      };
      channel.port2.postMessage(0);
      const img = frame.contentDocument.createElement('img');
      img.decoding = 'sync';
      img.crossOrigin = 'anonymous';
      const t0 = performance.now();
      img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(`${svg}<!--${round}-->`)}`;
      await img.decode();
      const t1 = performance.now();
      const decodeTask = Math.max(gap, t1 - last);
      context.drawImage(img, 0, 0, w, h);
      const t2 = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 0));
      pinging = false;
      channel.port1.close();
      return { decode: t1 - t0, decodeTask, draw: t2 - t1, task: Math.max(gap, decodeTask) };
    }
    const out = jobs.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < jobs.length; i++) {
        out[i].push(await once(jobs[i].svg, round));
        await pause();
      }
    }
    return out;
  },
  { jobs, rounds },
);

const fmt = (value) => value.toFixed(1).padStart(6);
console.log(`${widgetId}: ${svgs.length} layer SVGs; median of ${rounds} (ms)`);
console.log(
  `${'svg'.padEnd(28)}${'KB'.padStart(6)}${'decode'.padStart(8)}${'task'.padStart(8)}${'draw'.padStart(8)}  longest task`,
);
jobs.forEach((job, i) => {
  const r = rows[i];
  const pick = (key) => median(r.map((x) => x[key]));
  console.log(
    `${job.name.padEnd(28)}${(job.svg.length / 1024).toFixed(0).padStart(6)}  ${fmt(pick('decode'))}  ${fmt(pick('decodeTask'))}  ${fmt(pick('draw'))}  ${fmt(pick('task'))}`,
  );
});
const rules = (css.match(/\{[^}]*\}/g) ?? []).length;
const declarations = (css.match(/:[^;{}]+;/g) ?? []).length;
console.log(
  `largest layer: ${(css.length / 1024).toFixed(0)} KB of <style>, ${rules} rules, ${declarations} declarations`,
);
await t.close();
await h.closeAll();

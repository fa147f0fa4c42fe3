/**
 * The foundation, end to end and for real (issue 2): a real MCP client, over
 * Streamable HTTP and over stdio, drives the demo terminal in headless Chromium
 * through the real server and relay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMITS,
  OPERATOR_PROMPT,
  SESSIONS_URI,
  CATALOG_URI,
  sessionContextUri,
  type BatchData,
  type CallReceipt,
  type ContextData,
  type ListControlsData,
  type SessionsDocument,
} from '../src/protocol/index.js';
import { MAIN_CHART, WATCHLIST, openTerminal, shownRange, type Terminal, type Transport } from './harness/terminal.js';

const FOUNDATION_TOOLS = {
  tradescript_get_context: [true, false, true, false],
  tradescript_list_controls: [true, false, true, false],
  tradescript_call: [false, true, false, true],
  tradescript_batch: [false, true, false, true],
} as const;

describe.each<Transport>(['http', 'stdio'])('foundation over %s', (transport) => {
  let t: Terminal;
  beforeAll(async () => {
    t = await openTerminal(transport);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function viewportRevision(): Promise<number> {
    const context = await t.call<ContextData>('tradescript_get_context', {
      sessionId: t.sessionId,
      target: MAIN_CHART,
    });
    return context.envelope.data!.controllerRevisions['chart']!['viewport']!;
  }

  it('SPEC §3 lists the tools with explicit input and output schemas and the annotations of the table', async () => {
    const { tools } = await t.client.listTools();
    for (const [name, [readOnly, destructive, idempotent, openWorld]] of Object.entries(FOUNDATION_TOOLS)) {
      const tool = tools.find((candidate) => candidate.name === name);
      expect(tool, name).toBeDefined();
      expect(tool!.annotations).toMatchObject({
        readOnlyHint: readOnly,
        destructiveHint: destructive,
        idempotentHint: idempotent,
        openWorldHint: openWorld,
      });
    }
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(Object.keys(tool.inputSchema.properties ?? {}).length).toBeGreaterThan(0);
      expect(tool.outputSchema?.type).toBe('object');
      expect(Object.keys(tool.outputSchema?.properties ?? {}).sort()).toEqual(['data', 'error', 'meta']);
      expect(tool.description?.length ?? 0).toBeGreaterThan(40);
    }
  });

  it('SPEC §3 reads the catalog, the sessions and the session context resources, and the operator prompt', async () => {
    const sessions = JSON.parse(
      ((await t.client.readResource({ uri: SESSIONS_URI })).contents[0] as { text: string }).text,
    ) as SessionsDocument;
    const mine = sessions.sessions.find((s) => s.sessionId === t.sessionId);
    expect(mine).toMatchObject({ connected: true, hostKind: 'page', environment: 'paper' });
    expect(mine!.attachments.length).toBeGreaterThanOrEqual(1);

    const catalog = JSON.parse(
      ((await t.client.readResource({ uri: CATALOG_URI })).contents[0] as { text: string }).text,
    );
    const ids = (catalog.controls as { controlId: string }[]).map((c) => c.controlId);
    expect(ids).toEqual(expect.arrayContaining(['chart.setVisibleRange', 'chart.createTradingLine', 'watchlist.add']));

    const listed = await t.client.listResources();
    expect(listed.resources.map((r) => r.uri)).toContain(sessionContextUri(t.sessionId));
    const context = JSON.parse(
      ((await t.client.readResource({ uri: sessionContextUri(t.sessionId) })).contents[0] as { text: string }).text,
    ) as ContextData;
    expect(context.availableTargets.map((a) => a.target)).toContainEqual(MAIN_CHART);

    const templates = await t.client.listResourceTemplates();
    expect(templates.resourceTemplates.map((r) => r.uriTemplate)).toContain(
      'tradescript://sessions/{sessionId}/context',
    );

    const prompt = await t.client.getPrompt({ name: OPERATOR_PROMPT });
    const text = prompt.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n');
    expect(text).toMatch(/tradescript:\/\/sessions/);
    expect(text).toMatch(/revision_conflict/);
  });

  it('SPEC §2 context names its targets, revisions, environment and effective grant', async () => {
    const { envelope, isError } = await t.call<ContextData>('tradescript_get_context', {
      sessionId: t.sessionId,
      target: { scope: 'session' },
    });
    expect(isError).toBe(false);
    expect(envelope.meta).toMatchObject({ sessionId: t.sessionId, environment: 'paper' });
    const data = envelope.data!;
    expect(data.environment).toBe('paper');
    expect(data.access).toEqual({ grant: 'write', adapterMaximum: 'write', effective: 'write' });
    expect(data.availableTargets.map((a) => a.target)).toEqual(
      expect.arrayContaining([
        { scope: 'session' },
        MAIN_CHART,
        { scope: 'chart', chartId: 'eth-alt' },
        WATCHLIST,
        { scope: 'widget', widgetId: 'terminal' },
      ]),
    );
    const chart = await t.call<ContextData>('tradescript_get_context', { sessionId: t.sessionId, target: MAIN_CHART });
    expect(chart.envelope.data!.controllerRevisions['chart']).toMatchObject({ viewport: expect.any(Number) });
  });

  it('SPEC §5 list_controls shows the effective page and a real unavailable reason', async () => {
    const chart = await t.call<ListControlsData>('tradescript_list_controls', {
      sessionId: t.sessionId,
      target: MAIN_CHART,
    });
    const ids = chart.envelope.data!.controls.map((c) => c.controlId);
    expect(ids).toEqual(
      expect.arrayContaining(['chart.setVisibleRange', 'chart.getVisibleRange', 'chart.createTradingLine']),
    );
    const set = chart.envelope.data!.controls.find((c) => c.controlId === 'chart.setVisibleRange')!;
    expect(set).toMatchObject({ accessClass: 'write', mutation: true, revisionDomains: ['viewport'] });
    expect(set.args[0]?.schema).toMatchObject({ type: 'object' });

    const watchlist = await t.call<ListControlsData>('tradescript_list_controls', {
      sessionId: t.sessionId,
      target: WATCHLIST,
    });
    expect(watchlist.envelope.data!.unavailableControls).toContainEqual(
      expect.objectContaining({ control: 'watchlist.add', reason: 'surface-policy' }),
    );
    const denied = await t.call('tradescript_call', {
      sessionId: t.sessionId,
      target: WATCHLIST,
      controlId: 'watchlist.add',
      args: ['SOLUSDT'],
    });
    expect(denied.envelope.error).toMatchObject({ code: 'control_unavailable', details: { reason: 'surface-policy' } });
  });

  it('SPEC §5 moves the chart with correct revisions, then a stale revision conflicts and leaves it unchanged', async () => {
    const before = await viewportRevision();
    const range = await t.call<CallReceipt>('tradescript_call', {
      sessionId: t.sessionId,
      target: MAIN_CHART,
      controlId: 'chart.getVisibleRange',
    });
    const shown = range.envelope.data!.result as { startTime: number; endTime: number };
    const span = shown.endTime - shown.startTime;
    const wanted = { startTime: shown.startTime - span, endTime: shown.endTime - Math.floor(span / 2) };

    const moved = await t.call<CallReceipt>('tradescript_call', {
      sessionId: t.sessionId,
      target: MAIN_CHART,
      controlId: 'chart.setVisibleRange',
      args: [wanted],
      expectedRevisions: { viewport: before },
      requestId: `move-${transport}`,
    });
    expect(moved.isError).toBe(false);
    const receipt = moved.envelope.data!;
    expect(receipt).toMatchObject({
      origin: 'mcp',
      controlId: 'chart.setVisibleRange',
      target: MAIN_CHART,
      mutation: true,
      revisionsBefore: { viewport: before },
      revisionsAfter: { viewport: before + 1 },
    });
    expect(moved.envelope.meta.requestId).toBe(`move-${transport}`);
    const applied = receipt.result as { startTime: number; endTime: number };
    await t.page.waitForFunction(
      ([id, from, to]) => {
        const r = (
          window as unknown as {
            __tradescriptDemo: { charts: Record<string, { visibleRange(): { startTime: number; endTime: number } }> };
          }
        ).__tradescriptDemo.charts[id as string]!.visibleRange();
        return r.startTime === from && r.endTime === to;
      },
      ['btc-main', applied.startTime, applied.endTime] as const,
    );
    expect(applied.startTime).not.toBe(shown.startTime);

    const stale = await t.call('tradescript_call', {
      sessionId: t.sessionId,
      target: MAIN_CHART,
      controlId: 'chart.setVisibleRange',
      args: [{ startTime: shown.startTime, endTime: shown.endTime }],
      expectedRevisions: { viewport: before },
    });
    expect(stale.isError).toBe(true);
    expect(stale.envelope.error).toMatchObject({
      code: 'revision_conflict',
      retry: 'after_reread',
      details: { current: { viewport: before + 1 } },
    });
    expect(await shownRange(t.page)).toEqual({ startTime: applied.startTime, endTime: applied.endTime });
  });

  it('SPEC §4 invalid arguments get exact, value-free diagnostics', async () => {
    const bad = await t.call('tradescript_call', {
      sessionId: t.sessionId,
      target: { scope: 'chart', chartId: 'btc-main', zoomLevelSecret: 3 },
      controlId: 42,
      leakyExtra: 'do-not-echo-me',
    });
    expect(bad.isError).toBe(true);
    expect(bad.envelope.error).toMatchObject({
      code: 'invalid_input',
      retry: 'after_correction',
      broker_message: null,
    });
    expect(bad.envelope.error!.validation_errors).toEqual([
      { path: ['target'], code: 'unknown_field', message: expect.any(String) },
      { path: ['controlId'], code: 'invalid_type', message: 'Expected a string.' },
      { path: [], code: 'unknown_field', message: expect.any(String) },
    ]);
    const text = JSON.stringify(bad.result);
    expect(text).not.toMatch(/zoomLevelSecret|leakyExtra|do-not-echo-me/);

    const badArg = await t.call('tradescript_call', {
      sessionId: t.sessionId,
      target: MAIN_CHART,
      controlId: 'chart.setVisibleRange',
      args: [{ startTime: 'yesterday-9931', endTime: 5 }],
      expectedRevisions: { viewport: await viewportRevision() },
    });
    expect(badArg.envelope.error).toMatchObject({ code: 'invalid_input' });
    expect(badArg.envelope.error!.validation_errors).toContainEqual(
      expect.objectContaining({ path: ['args', 0, 'startTime'], code: 'invalid_type' }),
    );
    expect(JSON.stringify(badArg.result)).not.toContain('yesterday-9931');

    const missing = await t.call('tradescript_call', {
      sessionId: t.sessionId,
      target: MAIN_CHART,
      controlId: 'chart.setVisibleRange',
      args: [{ startTime: 1, endTime: 2 }],
    });
    expect(missing.envelope.error).toMatchObject({
      code: 'invalid_input',
      validation_errors: [expect.objectContaining({ path: ['expectedRevisions'] })],
    });
  });

  it('SPEC §3 a batch stops on the first error by default and runs on with stopOnError false', async () => {
    const read = { target: MAIN_CHART, controlId: 'chart.getVisibleRange' };
    const broken = { target: MAIN_CHART, controlId: 'chart.noSuchControl' };
    const stopped = await t.call<BatchData>('tradescript_batch', {
      sessionId: t.sessionId,
      calls: [read, broken, read, read],
    });
    expect(stopped.isError).toBe(false);
    expect(stopped.envelope.data!.atomic).toBe(false);
    expect(stopped.envelope.data!.outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'skipped',
      'skipped',
    ]);
    expect(stopped.envelope.data!.outcomes[1]).toMatchObject({ index: 1, error: { code: 'control_not_found' } });
    expect(stopped.envelope.data!.outcomes[3]).toEqual({ index: 3, status: 'skipped', reason: 'stop-on-error' });

    const lines = await t.call<ContextData>('tradescript_get_context', { sessionId: t.sessionId, target: MAIN_CHART });
    const line = {
      target: MAIN_CHART,
      controlId: 'chart.createTradingLine',
      args: [{ kind: 'alert', price: '60000.5', label: 'batch line' }],
      expectedRevisions: { tradingLines: lines.envelope.data!.controllerRevisions['chart']!['tradingLines'] },
    };
    const ran = await t.call<BatchData>('tradescript_batch', {
      sessionId: t.sessionId,
      calls: [broken, read, line],
      stopOnError: false,
    });
    const outcomes = ran.envelope.data!.outcomes;
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(outcomes.map((o) => o.index)).toEqual([0, 1, 2]);
  });

  it('SPEC §6 each limit is enforced with its name and maximum', async () => {
    const base = { sessionId: t.sessionId, target: MAIN_CHART, controlId: 'chart.getVisibleRange' };
    const tooMany = await t.call('tradescript_batch', {
      sessionId: t.sessionId,
      calls: Array.from({ length: 26 }, () => ({ target: MAIN_CHART, controlId: 'chart.getVisibleRange' })),
    });
    expect(tooMany.envelope.error).toMatchObject({ code: 'limit_exceeded', details: { limit: 'batchCalls', max: 25 } });

    const args = await t.call('tradescript_call', { ...base, args: Array.from({ length: 17 }, (_, i) => i) });
    expect(args.envelope.error).toMatchObject({ code: 'limit_exceeded', details: { limit: 'callArgs', max: 16 } });

    const big = await t.call('tradescript_call', { ...base, args: ['x'.repeat(300 * 1024)] });
    expect(big.envelope.error).toMatchObject({ code: 'request_too_large', retry: 'after_correction' });

    const long = await t.call('tradescript_call', { ...base, args: ['y'.repeat(DEFAULT_LIMITS.stringLength + 1)] });
    expect(long.envelope.error).toMatchObject({
      code: 'limit_exceeded',
      details: { limit: 'stringLength', max: DEFAULT_LIMITS.stringLength },
    });

    let deep: unknown = 0;
    for (let i = 0; i < 30; i++) deep = [deep];
    const nested = await t.call('tradescript_call', { ...base, args: [deep] });
    expect(nested.envelope.error).toMatchObject({ code: 'limit_exceeded', details: { limit: 'jsonDepth', max: 24 } });
  });

  it('SPEC §4 an unknown tool stays a protocol error', async () => {
    await expect(t.client.callTool({ name: 'tradescript_nope', arguments: {} })).rejects.toThrow();
  });

  it('SPEC §12 the live terminal runs no animation while nobody acts: a moved price is tinted by a class that comes off again', async () => {
    const seen = await t.page.evaluate(async () => {
      let tinted = 0;
      let untinted = 0;
      const observer = new MutationObserver((records) => {
        for (const r of records) {
          const had = (r.oldValue ?? '').split(' ').includes('flash');
          const has = (r.target as Element).classList.contains('flash');
          if (!had && has) tinted += 1;
          if (had && !has) untinted += 1;
        }
      });
      for (const last of document.querySelectorAll('.watch-last')) {
        observer.observe(last, { attributes: true, attributeFilter: ['class'], attributeOldValue: true });
      }
      let running = 0;
      for (let i = 0; i < 30; i += 1) {
        running = Math.max(running, document.getAnimations().filter((a) => a.playState === 'running').length);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      observer.disconnect();
      return { tinted, untinted, running };
    });
    // The market ticks twice a second: prices moved and were tinted, and their tint came off, with no animation running.
    expect(seen.tinted).toBeGreaterThan(0);
    expect(seen.untinted).toBeGreaterThan(0);
    expect(seen.running).toBe(0);
  });

  it('SPEC §12 a person zooming the main chart out past the bars its series holds sees the older live bars', async () => {
    // The series holds the newest 150 one-minute bars until a scroll or zoom nears the first of them.
    const box = (await t.page.getByTestId('panel-chart-btc-main').locator('canvas').first().boundingBox())!;
    await t.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    let span = 0;
    for (let i = 0; i < 40 && span <= 200 * 60; i += 1) {
      await t.page.mouse.wheel(0, 400);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const shown = await shownRange(t.page);
      span = shown.endTime - shown.startTime;
    }
    expect(span).toBeGreaterThan(200 * 60);
  });

  it('a person hovering or focusing a depth ladder row reads what clicking it does, at the price the row shows', async () => {
    const ladder = t.page.getByTestId('panel-depth-ladder');
    // The row's title and its price text, read in one task (a tick repaints both in one frame).
    const read = (index: number): Promise<{ title: string | null; price: string }> =>
      ladder
        .locator('.ladder-row')
        .nth(index)
        .evaluate((row) => ({ title: row.getAttribute('title'), price: row.querySelector('.price')!.textContent! }));
    const matches = ({ title, price }: { title: string | null; price: string }): boolean => {
      const said = /^(Buy|Sell) limit at ([\d.]+): prefill the ticket$/.exec(title ?? '');
      return said !== null && Number(said[2]) === Number(price.replaceAll(',', ''));
    };
    // An ask row (above the spread) under the pointer: its tooltip, and it follows the price as the market ticks.
    await ladder.locator('.ladder-row').nth(2).hover();
    const hovered = await read(2);
    expect(hovered.title).toMatch(/^Sell limit at /);
    expect(matches(hovered)).toBe(true);
    const start = await read(2);
    let later = start;
    for (let i = 0; i < 40 && later.price === start.price; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      later = await read(2);
    }
    expect(later.price).not.toBe(start.price);
    expect(matches(later)).toBe(true);
    // A bid row (below the spread) reached by keyboard focus, with the pointer elsewhere.
    await t.page.mouse.move(0, 0);
    await ladder.locator('.ladder-row').nth(9).focus();
    const focused = await read(9);
    expect(focused.title).toMatch(/^Buy limit at /);
    expect(matches(focused)).toBe(true);
    await ladder.locator('.ladder-row').nth(9).blur();
  });

  it('a screen reader browsing the depth ladder, with no row hovered or focused, is told what each row does at its price', async () => {
    await t.page.mouse.move(0, 0);
    const cdp = await t.page.context().newCDPSession(t.page);
    try {
      const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
      for (const index of [2, 9]) {
        const row = t.page.getByTestId('panel-depth-ladder').locator('.ladder-row').nth(index);
        // The row's attribute and price in one task, Chromium's computed description, then the attribute again:
        // the market ticks twice a second, so compare only when no tick fell between the reads.
        let seen: { said: string; description: string; price: string } | null = null;
        for (let i = 0; i < 20 && seen === null; i += 1) {
          const before = await row.evaluate((el) => ({
            said: el.getAttribute('aria-description') ?? '',
            price: el.querySelector('.price')!.textContent!,
            title: el.getAttribute('title'),
          }));
          expect(before.title).toBeNull();
          const rows = '[data-testid="panel-depth-ladder"] .ladder-row';
          const { nodeIds } = await cdp.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector: rows });
          const nodeId = nodeIds[index]!;
          const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
          const description = String(nodes[0]?.description?.value ?? '');
          const after = await row.evaluate((el) => el.getAttribute('aria-description') ?? '');
          if (after === before.said) seen = { said: before.said, description, price: before.price };
        }
        expect(seen).not.toBeNull();
        expect(seen!.description).toBe(seen!.said);
        const said = /^(Buy|Sell) limit at ([\d.]+): prefill the ticket$/.exec(seen!.description);
        expect(said?.[1]).toBe(index < 6 ? 'Sell' : 'Buy');
        expect(Number(said?.[2])).toBe(Number(seen!.price.replaceAll(',', '')));
      }
    } finally {
      await cdp.detach();
    }
  });

  it('the depth ladder shows whole levels below its column headings, the nearest each side of the spread, at 1280×720 and 1280×1000', async () => {
    const before = t.page.viewportSize();
    // Where each ladder row sits (shown or hidden), the headings' bottom and the rows box's bottom, after a frame.
    const layout = async (width: number, height: number) => {
      await t.page.setViewportSize({ width, height });
      return t.page.getByTestId('panel-depth-ladder').evaluate(async (panel) => {
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
        const headings = panel.querySelector('.ladder-columns')!.getBoundingClientRect();
        const box = panel.querySelector('.ladder-rows')!.getBoundingClientRect();
        const rows = [...panel.querySelectorAll<HTMLElement>('.ladder-row')].map((row) => row.getBoundingClientRect());
        return {
          shown: rows.flatMap((r, index) => (r.height > 0 ? [index] : [])),
          top: Math.min(...rows.filter((r) => r.height > 0).map((r) => r.top)),
          bottom: Math.max(...rows.filter((r) => r.height > 0).map((r) => r.bottom)),
          headingsBottom: headings.bottom,
          boxBottom: box.bottom,
        };
      });
    };
    try {
      // 12 rows and the spread need about 210 px; at 1280×720 the rows box has about 150: four levels a side.
      const small = await layout(1280, 720);
      expect(small.shown).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
      expect(small.top).toBeGreaterThanOrEqual(small.headingsBottom);
      expect(small.bottom).toBeLessThanOrEqual(small.boxBottom);
      // A taller window shows every level again.
      const tall = await layout(1280, 1000);
      expect(tall.shown).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      expect(tall.top).toBeGreaterThanOrEqual(tall.headingsBottom);
      expect(tall.bottom).toBeLessThanOrEqual(tall.boxBottom);
    } finally {
      if (before) await t.page.setViewportSize(before);
    }
  });

  it('the page stays free of errors', () => {
    expect(t.pageErrors).toEqual([]);
  });
});

/**
 * One chart panel's life on the host: opening builds the lightweight-charts
 * pane, registers the chart target (with its canvas as render source),
 * mounts the chart controller and provides its channels; closing
 * unregisters the target, which releases every binding on it at once
 * (subscriptions become `target-unregistered` tombstones), then frees the
 * pane and leaves a "Reopen" button in the panel.
 */
import type { Revisions, Target } from '../../../src/protocol/index.js';
import type { MountedController, TargetHandle, TerminalHost } from '../../../src/sdk/index.js';
import { ChartPane } from './chartPane.js';
import type { SourceMeter } from '../channels/sourceMeter.js';
import { chartViewportChannel, ViewportFeed, type ViewportChange } from './viewportChannel.js';
import type { Interval } from '../market/candles.js';
import type { MarketSimulator } from '../market/simulator.js';
import { el } from '../ui/dom.js';
import type { FrameBatcher } from '../ui/frameBatcher.js';
import { chartController } from './chartController.js';
import { chartControls } from './chartControls.js';
import { announcingControls, viewportEvent } from './chartViewport.js';

/** What a chart slot is built from. */
export interface ChartSlotOptions {
  host: TerminalHost;
  chartId: string;
  label: string;
  /** The panel element. */
  root: HTMLElement;
  market: MarketSimulator;
  frames: FrameBatcher;
  symbol: string;
  interval: Interval;
  /** Offers a close button (the main chart stays). */
  closable: boolean;
  /** Provides the channels shared with other targets (quotes) on this chart. */
  provideShared: (target: Target) => void;
  /** Counts the chart's own channel bindings (for the test hooks). */
  meter: SourceMeter;
}

interface OpenChart {
  pane: ChartPane;
  handle: TargetHandle;
  mounted: MountedController;
  feed: ViewportFeed;
}

/** A chart panel that can be closed and reopened. */
export class ChartSlot {
  readonly target: Target;
  private current: OpenChart | null = null;

  constructor(private readonly options: ChartSlotOptions) {
    this.target = { scope: 'chart', chartId: options.chartId };
  }

  /** The open chart's pane, or null while closed. */
  get pane(): ChartPane | null {
    return this.current?.pane ?? null;
  }

  /** The chart controller's revisions (empty while closed). */
  revisions(): Revisions {
    return this.current?.mounted.revisions.all() ?? {};
  }

  /** Bindings listening to this chart's viewport now. */
  viewportListeners(): number {
    return this.current?.feed.listenerCount() ?? 0;
  }

  /** Builds the chart and puts it on the host; does nothing when open. */
  open(): void {
    if (this.current) return;
    const { host, root, market, label } = this.options;
    root.replaceChildren();
    root.classList.remove('chart-closed');
    const feed = new ViewportFeed();
    const pane = new ChartPane({
      chartId: this.options.chartId,
      root,
      market,
      frames: this.options.frames,
      symbol: this.options.symbol,
      interval: this.options.interval,
      onUserViewportChange: (change) => this.personChanged(change),
      ...(this.options.closable ? { onClose: () => this.close() } : {}),
    });
    const handle = host.registerTarget(this.target, {
      label,
      state: () => pane.state(),
      render: { kind: 'canvas', capture: () => Promise.resolve(pane.screenshot()) },
    });
    const symbols = (): string[] => market.symbols().map((spec) => spec.symbol);
    const controls = announcingControls(chartControls(pane, symbols), pane, feed);
    const mounted = host.mount(this.target, chartController, controls);
    this.current = { pane, handle, mounted, feed };
    host.provideChannel(
      this.target,
      chartViewportChannel,
      this.options.meter.wrap(this.target, chartViewportChannel, feed.source()),
    );
    this.options.provideShared(this.target);
  }

  /** Takes the chart off the host and frees it; does nothing when closed. */
  close(): void {
    const open = this.current;
    if (!open) return;
    this.current = null;
    open.handle.unregister();
    open.pane.dispose();
    this.showClosed();
  }

  /** A change the person made outside the chart (e.g. a watchlist pick), applied and announced. */
  personApplies(change: ViewportChange, apply: (pane: ChartPane) => void): void {
    const pane = this.pane;
    if (!pane) return;
    apply(pane);
    this.personChanged(change);
  }

  /** The person's change bumps `viewport` and goes out on `chart.viewport`. */
  private personChanged(change: ViewportChange): void {
    const open = this.current;
    if (!open) return;
    const revision = open.mounted.revisions.bump('viewport');
    open.feed.publish(viewportEvent(open.pane, change, revision, null));
  }

  private showClosed(): void {
    const { root, chartId, label } = this.options;
    const reopen = el('button', {
      class: 'btn chart-reopen',
      text: `Reopen ${label.toLowerCase()}`,
      attrs: { type: 'button', 'data-testid': `chart-reopen-${chartId}` },
    });
    reopen.addEventListener('click', () => this.open());
    root.classList.add('chart-closed');
    root.replaceChildren(
      el('div', { class: 'chart-closed-body' }, [
        el('span', { class: 'muted', text: `Chart ${chartId} is closed.` }),
        reopen,
      ]),
    );
  }
}

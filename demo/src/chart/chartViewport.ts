/**
 * Feeds a chart's `chart.viewport` channel: the agent's range, symbol and
 * interval controls announce their change after they applied it (with the
 * MCP client's name); the person's gestures are announced by the chart slot.
 */
import type { ControlContext, ControllerImpl } from '../../../src/sdk/index.js';
import type { ViewportChange, ViewportEvent, ViewportFeed } from './viewportChannel.js';
import type { chartController } from './chartController.js';
import type { ChartModel } from './chartModel.js';

type ChartControls = ControllerImpl<(typeof chartController)['controls']>;

/** The event for a change `model` now shows. */
export function viewportEvent(
  model: ChartModel,
  change: ViewportChange,
  revision: number,
  clientName: string | null,
): ViewportEvent {
  const range = model.visibleRange();
  return {
    chartId: model.chartId,
    change,
    changedBy: clientName === null ? 'person' : 'agent',
    ...(clientName === null ? {} : { clientName: clientName.slice(0, 128) }),
    symbol: model.symbol(),
    interval: model.interval(),
    startTime: range.from,
    endTime: range.to,
    revision,
    time: new Date().toISOString(),
  };
}

/** `controls` whose viewport mutations announce themselves on `feed`. */
export function announcingControls(controls: ChartControls, model: ChartModel, feed: ViewportFeed): ChartControls {
  const announce = (ctx: ControlContext, change: ViewportChange): void => {
    feed.publish(viewportEvent(model, change, ctx.revisions.get('viewport'), ctx.attachment.clientName));
  };
  return {
    ...controls,
    setVisibleRange: async (ctx, range) => {
      const result = await controls.setVisibleRange(ctx, range);
      announce(ctx, 'range');
      return result;
    },
    setSymbol: async (ctx, symbol) => {
      const result = await controls.setSymbol(ctx, symbol);
      announce(ctx, 'symbol');
      return result;
    },
    setInterval: async (ctx, interval) => {
      const result = await controls.setInterval(ctx, interval);
      announce(ctx, 'interval');
      return result;
    },
  };
}

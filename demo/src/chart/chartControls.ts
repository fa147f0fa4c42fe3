/**
 * The `chart` controller's implementation over a {@link ChartModel}. Each
 * successful mutation bumps the revision domain it declares, so an agent
 * holding an older revision gets a conflict instead of overwriting.
 */
import { controlFailure } from '../../../src/sdk/outcomes/failures.js';
import type { ControllerImpl } from '../../../src/sdk/types.js';
import type { TradingLine } from './tradingLines.js';
import type { chartController } from './chartController.js';
import { toTimeRange, type ChartModel } from './chartModel.js';

type ChartControls = (typeof chartController)['controls'];

/** What the chart controls may show of a chart. */
export interface Viewport {
  symbol: string;
  interval: ReturnType<ChartModel['interval']>;
  startTime: number;
  endTime: number;
}

/** The viewport a chart shows now. */
export function viewportOf(model: ChartModel): Viewport {
  const range = model.visibleRange();
  return { symbol: model.symbol(), interval: model.interval(), startTime: range.from, endTime: range.to };
}

/** Implements the chart controls on one chart; `symbols` lists the tickers the market quotes. */
export function chartControls(model: ChartModel, symbols: () => readonly string[]): ControllerImpl<ChartControls> {
  return {
    getVisibleRange: () => viewportOf(model),
    setVisibleRange: (ctx, visible) => {
      const range = toTimeRange(visible);
      const newest = model.newestTime();
      if (range.from > newest) {
        throw controlFailure('definite-failure', {
          message: `The chart's newest bar starts at ${newest} (unix seconds); choose a range that starts before it. Nothing changed.`,
        });
      }
      model.applyVisibleRange(range);
      ctx.revisions.bump('viewport');
      return viewportOf(model);
    },
    setSymbol: (ctx, symbol) => {
      const known = symbols();
      if (!known.includes(symbol)) {
        throw controlFailure('definite-failure', {
          message: `The market does not quote that symbol. Choose one of ${known.join(', ')}. Nothing changed.`,
        });
      }
      model.setSymbol(symbol);
      ctx.revisions.bump('viewport');
      return viewportOf(model);
    },
    setInterval: (ctx, interval) => {
      model.setInterval(interval);
      ctx.revisions.bump('viewport');
      return viewportOf(model);
    },
    createTradingLine: (ctx, input) => {
      const line = model.lines.create(input);
      if (!line) {
        throw controlFailure('definite-failure', {
          message:
            'This chart already holds 50 trading lines; remove one with removeTradingLine first. Nothing changed.',
        });
      }
      ctx.revisions.bump('tradingLines');
      return line;
    },
    getTradingLine: (_ctx, lineId) => existing(model.lines.get(lineId), 'not-found'),
    listTradingLines: () => ({ lines: model.lines.list() }),
    updateTradingLine: (ctx, lineId, patch) => {
      const line = existing(model.lines.update(lineId, patch), 'definite-failure');
      ctx.revisions.bump('tradingLines');
      return line;
    },
    removeTradingLine: (ctx, lineId) => {
      if (!model.lines.remove(lineId)) existing(undefined, 'definite-failure');
      ctx.revisions.bump('tradingLines');
      return { lineId, removed: true as const };
    },
  };
}

/**
 * The line, or a failure naming the next step. Reads report `not-found`;
 * mutations report a definite failure, because nothing changed.
 */
function existing(line: TradingLine | undefined, kind: 'not-found' | 'definite-failure'): TradingLine {
  if (line) return line;
  throw controlFailure(kind, {
    message: 'This chart has no trading line with that lineId; call listTradingLines for the current ids.',
  });
}

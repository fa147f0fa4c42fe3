/**
 * The `chart` controller's declaration: zod signatures, access classes,
 * families and revision domains. Descriptors and JSON Schemas derive from it.
 */
import { z } from 'zod';
import { arg, control, declareController } from '../../../src/sdk/declare/declare.js';
import { INTERVALS } from '../market/candles.js';

const UnixSeconds = z.number().int().min(0).max(4_102_444_800);

/** A time range in unix seconds, TradeScript's `{startTime, endTime}`; `startTime` must be earlier than `endTime`. */
export const TimeRangeSchema = z
  .object({
    startTime: UnixSeconds.describe('Start, unix seconds.'),
    endTime: UnixSeconds.describe('End, unix seconds; later than startTime.'),
  })
  .strict()
  .refine((range) => range.startTime < range.endTime, { message: 'startTime must be earlier than endTime.' });

const IntervalSchema = z.enum(INTERVALS).describe('Bar interval.');
const SymbolSchema = z.string().min(1).max(32).describe('Ticker, e.g. "ETHUSDT".');

/** A positive decimal price as a string, e.g. "67250.5". */
export const PriceSchema = z
  .string()
  .regex(/^\d{1,18}(\.\d{1,12})?$/)
  .refine((value) => Number(value) > 0, { message: 'Price must be greater than zero.' })
  .describe('Price as a decimal string, e.g. "67250.5".');

const LineKindSchema = z.enum(['order', 'position', 'alert']);
const ColorSchema = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/)
  .describe('Color as #rrggbb.');
const LabelSchema = z.string().min(1).max(64).describe('Text shown on the line.');
const LineIdSchema = z.string().min(1).max(64).describe('A lineId from createTradingLine or listTradingLines.');

/** What the chart shows: instrument, interval and visible time range. */
export const ViewportSchema = z
  .object({
    symbol: z.string(),
    interval: IntervalSchema,
    startTime: z.number().int().describe('Visible range start, unix seconds.'),
    endTime: z.number().int().describe('Visible range end, unix seconds.'),
  })
  .strict();

/** One trading line. */
export const TradingLineSchema = z
  .object({
    lineId: z.string(),
    chartId: z.string(),
    kind: LineKindSchema,
    price: z.string(),
    label: z.string(),
    color: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .strict();

const TradingLineInputSchema = z
  .object({ kind: LineKindSchema, price: PriceSchema, label: LabelSchema.optional(), color: ColorSchema.optional() })
  .strict();

/** What updateTradingLine may change; at least one field. */
export const TradingLinePatchSchema = z
  .object({ price: PriceSchema.optional(), label: LabelSchema.optional(), color: ColorSchema.optional() })
  .strict()
  .refine((patch) => Object.values(patch).some((value) => value !== undefined), {
    message: 'Give at least one of price, label or color.',
  });

const read = { accessClass: 'read', risk: 'read', mutation: false, permission: 'chart.read' } as const;
const write = { accessClass: 'write', risk: 'write', mutation: true, permission: 'chart.write' } as const;

/** The `chart` controller, mounted on every chart target. */
export const chartController = declareController({
  name: 'chart',
  targetScopes: ['chart'],
  revisionDomains: ['viewport', 'drawings', 'tradingLines'],
  controls: {
    getVisibleRange: control({
      ...read,
      family: 'chart.viewport',
      description:
        'Reads what this chart shows: symbol, interval and the visible time range ({startTime, endTime}, unix seconds, bar-aligned). Read it, with the viewport revision from get_context, before setVisibleRange.',
      args: [],
      result: ViewportSchema,
    }),
    setVisibleRange: control({
      ...write,
      family: 'chart.viewport',
      revisionDomains: ['viewport'],
      description:
        'Scrolls and zooms the chart to a time range in unix seconds ({startTime, endTime}, startTime < endTime); a range before the loaded bars fetches the window of older history (500 bars) that holds endTime, and a range may not start after the newest bar. Returns the range the chart actually shows, snapped to bars. Pass expectedRevisions.viewport from get_context: the person may have scrolled meanwhile.',
      args: [arg('range', TimeRangeSchema)],
      result: ViewportSchema,
    }),
    setSymbol: control({
      ...write,
      family: 'chart.series',
      revisionDomains: ['viewport'],
      description:
        'Shows another instrument on this chart and scrolls to its latest bars. Only tickers the market quotes work (see the watchlist or context). Trading lines stay. Needs expectedRevisions.viewport.',
      args: [arg('symbol', SymbolSchema)],
      result: ViewportSchema,
    }),
    setInterval: control({
      ...write,
      family: 'chart.series',
      revisionDomains: ['viewport'],
      description:
        'Changes the bar interval (1m, 5m, 15m, 1h) and scrolls to the latest bars. Needs expectedRevisions.viewport.',
      args: [arg('interval', IntervalSchema)],
      result: ViewportSchema,
    }),
    createTradingLine: control({
      ...write,
      family: 'chart.tradingLines',
      revisionDomains: ['tradingLines'],
      description:
        'Draws a horizontal order, position or alert line at a price on this chart and returns it with its lineId. It is a drawing only: it places no order. Needs expectedRevisions.tradingLines; at most 50 lines per chart.',
      args: [arg('line', TradingLineInputSchema)],
      result: TradingLineSchema,
    }),
    getTradingLine: control({
      ...read,
      family: 'chart.tradingLines',
      description: 'Reads one trading line by lineId. Use listTradingLines to find ids.',
      args: [arg('lineId', LineIdSchema)],
      result: TradingLineSchema,
    }),
    listTradingLines: control({
      ...read,
      family: 'chart.tradingLines',
      description: 'Lists every trading line on this chart, oldest first.',
      args: [],
      result: z.object({ lines: z.array(TradingLineSchema) }).strict(),
    }),
    updateTradingLine: control({
      ...write,
      family: 'chart.tradingLines',
      revisionDomains: ['tradingLines'],
      description:
        'Moves or relabels a trading line (price, label and/or color; its kind stays). Read it first with getTradingLine; needs expectedRevisions.tradingLines.',
      args: [arg('lineId', LineIdSchema), arg('patch', TradingLinePatchSchema)],
      result: TradingLineSchema,
    }),
    removeTradingLine: control({
      ...write,
      family: 'chart.tradingLines',
      revisionDomains: ['tradingLines'],
      description:
        'Removes one trading line from this chart (a drawing only: it cancels no order). Needs expectedRevisions.tradingLines.',
      args: [arg('lineId', LineIdSchema)],
      result: z.object({ lineId: z.string(), removed: z.literal(true) }).strict(),
    }),
  },
});

/**
 * `chart.viewport`, the demo's own channel: an event each time a chart's
 * visible range, symbol or interval changes, saying who changed it (the
 * person at the terminal, or an agent through a chart control) and the
 * chart's `viewport` revision after the change, so an agent can tell its own
 * moves from the person's and re-read before acting on a stale view.
 */
import { z } from 'zod';
import { declareChannel, type ChannelSource } from '../../../src/sdk/index.js';
import { INTERVALS } from '../market/candles.js';

/** What changed. */
export const VIEWPORT_CHANGES = ['range', 'symbol', 'interval'] as const;
/** What changed. */
export type ViewportChange = (typeof VIEWPORT_CHANGES)[number];

const ViewportOptionsSchema = z
  .object({
    changedBy: z
      .array(z.enum(['person', 'agent']))
      .min(1)
      .max(2)
      .optional()
      .describe('Only changes made by these (default both).'),
  })
  .strict();

const ViewportEventSchema = z
  .object({
    chartId: z.string().max(64),
    change: z.enum(VIEWPORT_CHANGES),
    changedBy: z.enum(['person', 'agent']),
    clientName: z.string().max(128).optional().describe('The MCP client, when an agent changed it.'),
    symbol: z.string().max(32),
    interval: z.enum(INTERVALS),
    startTime: z.number().int().describe('Visible range start, unix seconds.'),
    endTime: z.number().int().describe('Visible range end, unix seconds.'),
    revision: z.number().int().nonnegative().describe("The chart's viewport revision after the change."),
    time: z.string().max(32),
  })
  .strict();

/** One viewport change. */
export type ViewportEvent = z.infer<typeof ViewportEventSchema>;

/** The `chart.viewport` channel, provided on every chart target. */
export const chartViewportChannel = declareChannel({
  channelId: 'chart.viewport',
  description:
    "Changes of this chart's visible range, symbol or interval, each with who made it (person or agent) and " +
    'the viewport revision after it. Use it to notice the person scrolling away from what you set; re-read ' +
    'context before acting on an older view.',
  options: ViewportOptionsSchema,
  optionsRequired: false,
  event: ViewportEventSchema,
  optionsExample: { changedBy: ['person'] },
  eventExample: {
    chartId: 'btc-main',
    change: 'range',
    changedBy: 'person',
    symbol: 'BTCUSDT',
    interval: '1m',
    startTime: 1767348000,
    endTime: 1767355200,
    revision: 4,
    time: '2026-01-02T10:00:00.000Z',
  },
  targetScopes: ['chart'],
});

/** One chart's viewport changes: the chart publishes, bindings listen. */
export class ViewportFeed {
  private readonly listeners = new Set<(event: ViewportEvent) => void>();

  /** Announces a change to every binding. */
  publish(event: ViewportEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /** How many bindings listen now. */
  listenerCount(): number {
    return this.listeners.size;
  }

  /** The channel's source on this chart. */
  source(): ChannelSource<typeof chartViewportChannel> {
    return {
      subscribe: (options, emit) => {
        const by = new Set(options?.changedBy ?? ['person', 'agent']);
        const listener = (event: ViewportEvent): void => {
          if (by.has(event.changedBy)) emit(event);
        };
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
      },
    };
  }
}

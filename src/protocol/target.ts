/**
 * Targets (SPEC §2): every context read, call, subscription and snapshot names one
 * explicit target. Nothing ever falls back to an "active" chart.
 */
import * as z from 'zod/mini';

/** An identifier chosen by the host: a chart id, widget id, channel id… */
export const IdSchema = z.string().check(z.minLength(1), z.maxLength(128));

/** The session itself. */
export const SessionTargetSchema = z.strictObject({ scope: z.literal('session') });
/** One chart. */
export const ChartTargetSchema = z.strictObject({ scope: z.literal('chart'), chartId: IdSchema });
/** One widget (including a registered whole-terminal widget). */
export const WidgetTargetSchema = z.strictObject({ scope: z.literal('widget'), widgetId: IdSchema });

/** `{scope:"session"}`, `{scope:"chart",chartId}` or `{scope:"widget",widgetId}`. */
export const TargetSchema = z.discriminatedUnion('scope', [SessionTargetSchema, ChartTargetSchema, WidgetTargetSchema]);
/** An explicit target. */
export type Target = z.infer<typeof TargetSchema>;

/** A target's scope. */
export const TargetScopeSchema = z.enum(['session', 'chart', 'widget']);
/** A target's scope. */
export type TargetScope = z.infer<typeof TargetScopeSchema>;

/** A stable string key for a target, for maps: `session`, `chart:ID`, `widget:ID`. */
export function targetKey(target: Target): string {
  switch (target.scope) {
    case 'session':
      return 'session';
    case 'chart':
      return `chart:${target.chartId}`;
    case 'widget':
      return `widget:${target.widgetId}`;
  }
}

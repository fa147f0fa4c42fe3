/**
 * Targets (SPEC §2): every context read, call, subscription and snapshot names one
 * explicit target. Nothing ever falls back to an "active" chart.
 */
import { z } from 'zod';

/** An identifier chosen by the host: a chart id, widget id, channel id… */
export const IdSchema = z.string().min(1).max(128);

/** The session itself. */
export const SessionTargetSchema = z.object({ scope: z.literal('session') }).strict();
/** One chart. */
export const ChartTargetSchema = z.object({ scope: z.literal('chart'), chartId: IdSchema }).strict();
/** One widget (including a registered whole-terminal widget). */
export const WidgetTargetSchema = z.object({ scope: z.literal('widget'), widgetId: IdSchema }).strict();

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

/** True when two targets name the same surface. */
export function sameTarget(a: Target, b: Target): boolean {
  return targetKey(a) === targetKey(b);
}

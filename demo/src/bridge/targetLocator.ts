/**
 * Where each chart and widget target is on screen, for the extension's
 * visible-tab capture (SPEC §8): the same elements the render sources show.
 */
import type { Target } from '../../../src/protocol/index.js';
import type { ChartSlot } from '../chart/chartSlot.js';

/** What the locator reads: the chart slots and each widget's panel. */
export interface LocatorParts {
  charts: ReadonlyMap<string, ChartSlot>;
  widgets: ReadonlyMap<string, Element>;
}

/** A target's element, or null for the session, a closed chart or an unknown widget. */
export function targetLocator(parts: LocatorParts): (target: Target) => Element | null {
  return (target) => {
    if (target.scope === 'chart') return parts.charts.get(target.chartId)?.pane?.surface ?? null;
    if (target.scope === 'widget') return parts.widgets.get(target.widgetId) ?? null;
    return null;
  };
}

/**
 * Short text for the element's rows: targets, times, durations, session ids.
 */
import type { Target } from '../protocol/target.js';

/** `session`, `chart btc-main`, `widget orders`. */
export function targetLabel(target: Target): string {
  switch (target.scope) {
    case 'session':
      return 'session';
    case 'chart':
      return `chart ${target.chartId}`;
    case 'widget':
      return `widget ${target.widgetId}`;
  }
}

// One formatter for every row: toLocaleTimeString builds a new one per call, which is slow for a full feed.
let clock: Intl.DateTimeFormat | null = null;

/** `14:03:27`, or the raw text when it is not a date. */
export function timeLabel(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  clock ??= new Intl.DateTimeFormat(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hour12: false,
  });
  return clock.format(date);
}

/** `12 ms`, `1.4 s`, `20 s`. */
export function durationLabel(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}

/** Enough of an opaque id to tell sessions apart. */
export function shortId(id: string): string {
  return id.length > 8 ? id.slice(0, 8) : id;
}

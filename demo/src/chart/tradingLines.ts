/**
 * Trading lines of one chart (order, position and alert price lines): the
 * state agents read and change, independent of how a chart draws them.
 */

/** What a trading line marks. */
export type TradingLineKind = 'order' | 'position' | 'alert';

/** One trading line as controls return it. */
export interface TradingLine {
  lineId: string;
  chartId: string;
  kind: TradingLineKind;
  /** Decimal string. */
  price: string;
  label: string;
  /** `#rrggbb`. */
  color: string;
  createdAt: string;
  updatedAt: string;
}

/** What creating a line takes. */
export interface TradingLineInput {
  kind: TradingLineKind;
  price: string;
  label?: string | undefined;
  color?: string | undefined;
}

/** What an update may change. */
export interface TradingLinePatch {
  price?: string | undefined;
  label?: string | undefined;
  color?: string | undefined;
}

/** Draws lines on a chart; the store tells it every change. */
export interface TradingLineRenderer {
  draw(line: TradingLine): void;
  erase(lineId: string): void;
}

/** Most lines per chart: a chart with more is unreadable. */
export const MAX_TRADING_LINES = 50;

/** Colors a line gets when the caller names none. */
export const DEFAULT_LINE_COLORS: Readonly<Record<TradingLineKind, string>> = {
  order: '#3b82f6',
  position: '#22c55e',
  alert: '#f59e0b',
};

/** The trading lines of one chart. */
export class TradingLineStore {
  private readonly lines = new Map<string, TradingLine>();
  private nextId = 1;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly chartId: string,
    private readonly renderer: TradingLineRenderer,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** How many lines the chart shows. */
  get size(): number {
    return this.lines.size;
  }

  /** Adds a line, or returns null when the chart already holds {@link MAX_TRADING_LINES}. */
  create(input: TradingLineInput): TradingLine | null {
    if (this.lines.size >= MAX_TRADING_LINES) return null;
    const at = this.now().toISOString();
    const line: TradingLine = {
      lineId: `line-${this.nextId++}`,
      chartId: this.chartId,
      kind: input.kind,
      price: input.price,
      label: input.label ?? input.kind,
      color: input.color ?? DEFAULT_LINE_COLORS[input.kind],
      createdAt: at,
      updatedAt: at,
    };
    this.lines.set(line.lineId, line);
    this.changed(line);
    return { ...line };
  }

  /** A copy of the line, or undefined. */
  get(lineId: string): TradingLine | undefined {
    const line = this.lines.get(lineId);
    return line && { ...line };
  }

  /** Copies of every line, oldest first. */
  list(): TradingLine[] {
    return [...this.lines.values()].map((line) => ({ ...line }));
  }

  /** Applies a patch; undefined when there is no such line. */
  update(lineId: string, patch: TradingLinePatch): TradingLine | undefined {
    const line = this.lines.get(lineId);
    if (!line) return undefined;
    if (patch.price !== undefined) line.price = patch.price;
    if (patch.label !== undefined) line.label = patch.label;
    if (patch.color !== undefined) line.color = patch.color;
    line.updatedAt = this.now().toISOString();
    this.changed(line);
    return { ...line };
  }

  /** Removes a line; false when there was none. */
  remove(lineId: string): boolean {
    if (!this.lines.delete(lineId)) return false;
    this.renderer.erase(lineId);
    for (const listener of this.listeners) listener();
    return true;
  }

  /** Called after every change (for counters in the page). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(line: TradingLine): void {
    this.renderer.draw({ ...line });
    for (const listener of this.listeners) listener();
  }
}

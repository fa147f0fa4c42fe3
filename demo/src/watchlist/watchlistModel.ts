/**
 * The symbols a person watches. The market decides which exist; this keeps
 * which are shown and in what order.
 */

/** The watched symbols, in display order. */
export class WatchlistModel {
  private readonly items: string[];
  private readonly listeners = new Set<() => void>();

  constructor(initial: readonly string[]) {
    this.items = [...new Set(initial)];
  }

  /** The watched symbols, in order. */
  symbols(): string[] {
    return [...this.items];
  }

  /** True when the symbol is watched. */
  has(symbol: string): boolean {
    return this.items.includes(symbol);
  }

  /** Appends a symbol; false when it was already watched. */
  add(symbol: string): boolean {
    if (this.has(symbol)) return false;
    this.items.push(symbol);
    this.notify();
    return true;
  }

  /** Removes a symbol; false when it was not watched. */
  remove(symbol: string): boolean {
    const index = this.items.indexOf(symbol);
    if (index < 0) return false;
    this.items.splice(index, 1);
    this.notify();
    return true;
  }

  /** Called after every change. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

/**
 * Which symbol the depth ladder shows. The person changes it (its own select,
 * or a watchlist pick); agents read it and must name the revision they saw
 * before placing at a level, so an order never lands on a symbol they did
 * not look at.
 */

/** The ladder's symbol, with change listeners. */
export class LadderModel {
  private current: string;
  private readonly listeners = new Set<(symbol: string) => void>();

  constructor(symbol: string) {
    this.current = symbol;
  }

  /** The symbol shown. */
  symbol(): string {
    return this.current;
  }

  /** Shows another symbol; listeners run only on a change. */
  setSymbol(symbol: string): void {
    if (symbol === this.current) return;
    this.current = symbol;
    for (const listener of this.listeners) listener(symbol);
  }

  /** Runs `listener` after each change; returns the unsubscribe. */
  onChange(listener: (symbol: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * Coalesces view updates into one task per animation frame: market ticks
 * arrive faster than anyone reads them, and a hidden tab should do nothing.
 */

/** Runs the latest task per key once on the next animation frame. */
export class FrameBatcher {
  private readonly pending = new Map<string, () => void>();
  private scheduled = false;

  /** Queues `task` under `key`, replacing an earlier task with that key. */
  schedule(key: string, task: () => void): void {
    this.pending.set(key, task);
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const tasks = [...this.pending.values()];
    this.pending.clear();
    for (const task of tasks) task();
  }
}

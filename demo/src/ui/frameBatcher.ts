/**
 * Coalesces view updates into one task per animation frame: market ticks
 * arrive faster than anyone reads them, and a hidden tab should do nothing.
 * The page's main thread also carries the relay socket, so every long frame
 * of the terminal's is a wait for a call that arrives during it: the charts'
 * updates, each of which makes lightweight-charts repaint the whole chart on
 * the frame after, go one per frame rather than all in one.
 */

/** Runs the latest task per key once on the next animation frame. */
export class FrameBatcher {
  private readonly pending = new Map<string, () => void>();
  /** Tasks queued with {@link scheduleAlone}, oldest first: one runs per frame. */
  private readonly alone = new Map<string, () => void>();
  private scheduled = false;

  /** Queues `task` under `key`, replacing an earlier task with that key. */
  schedule(key: string, task: () => void): void {
    this.pending.set(key, task);
    this.request();
  }

  /**
   * Queues `task` under `key` like {@link schedule}, but runs at most one of
   * these tasks per frame, in the order their keys were first queued: for
   * updates that make a frame long (a chart's repaint), so two of them fall
   * on two frames.
   */
  scheduleAlone(key: string, task: () => void): void {
    this.alone.set(key, task);
    this.request();
  }

  private request(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const tasks = [...this.pending.values()];
    this.pending.clear();
    const [next] = this.alone;
    if (next) {
      this.alone.delete(next[0]);
      tasks.push(next[1]);
    }
    for (const task of tasks) task();
    if (this.alone.size > 0) this.request();
  }
}

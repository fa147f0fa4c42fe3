/**
 * One-at-a-time sections per key. Mutations of one controller on one target
 * hold its lock from the final revision check to the recorded outcome, so two
 * calls carrying the same expected revisions cannot both pass.
 */
import { whenAborted, type Stop } from './deadline.js';

/** Releases a held lock. */
export type Release = () => void;

/** Locks by string key. */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Waits for the key, or gives up when `stop` aborts first (then resolves
   * null, and the queue moves on without this caller).
   */
  async acquire(key: string, stop: Stop): Promise<Release | null> {
    const previous = this.tails.get(key);
    let release!: Release;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous ? previous.then(() => mine) : mine;
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    // Free: nothing to wait for, so nothing waits on the stop (no deadline timer for the call).
    if (!previous) return release;
    const got = await Promise.race([previous.then(() => true), whenAborted(stop).then(() => false)]);
    if (!got) {
      release();
      return null;
    }
    return release;
  }
}

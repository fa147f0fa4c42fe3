/**
 * The page's relay timers, kept by the bridge worker (SPEC §9). Chromium
 * throttles a hidden page's timers (aligned to 1 s, and after five minutes
 * hidden chained timers wake about once a minute), while the heartbeat must
 * ping every 20 s against the server's 45 s silence limit. A dedicated
 * worker's timers are not throttled that way, and a message from it wakes the
 * page at once, so the heartbeat, its watchdog and the reconnect backoff run
 * on this clock. Per-call timers stay the page's own: none is liveness-critical.
 */
import type { PageObserveMessage } from '../../protocol/wire/observeLink.js';
import { systemClock, type Clock, type TimerHandle } from '../relay/clock.js';

/** Posts one message to the worker; false when it could not. */
export type WorkerPost = (message: PageObserveMessage) => boolean;

/** A {@link Clock} whose timers run in the bridge worker. */
export class WorkerClock implements Clock {
  private readonly waiting = new Map<number, () => void>();
  private next = 0;

  constructor(
    private readonly post: WorkerPost,
    private readonly local: Clock = systemClock,
  ) {}

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.next;
    this.waiting.set(id, fn);
    // A worker that cannot be told (it is gone): the page's own timer, throttled but still firing. The
    // handle stays ours either way, so clearing it (which forgets `id`) also stops the fallback.
    if (!this.post({ t: 'timer', id, ms: Math.max(0, ms) })) this.local.setTimeout(() => this.tick(id), ms);
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    if (typeof handle === 'number' && this.waiting.delete(handle)) this.post({ t: 'clearTimer', id: handle });
  }

  now(): number {
    return this.local.now();
  }

  /** The worker says timer `id` fell due. */
  tick(id: number): void {
    const fn = this.waiting.get(id);
    if (fn === undefined) return;
    this.waiting.delete(id);
    fn();
  }
}

/**
 * Application-level heartbeat of one socket (SPEC §9): a `ping` every interval
 * (which also keeps an MV3 service worker alive), and a watchdog that declares
 * the socket dead when nothing at all arrived for the silence timeout — a dead
 * TCP path often never fires `close` by itself.
 */
import type { Clock, TimerHandle } from './clock.js';

/** What the heartbeat does to its socket. */
export interface HeartbeatHooks {
  sendPing(n: number): void;
  /** Nothing arrived for the silence timeout. */
  onSilent(): void;
}

/** The heartbeat of one socket; stop it when the socket goes. */
export class Heartbeat {
  private lastInbound: number;
  private pingTimer: TimerHandle | null = null;
  private watchdog: TimerHandle | null = null;
  private nextPing = 0;
  private stopped = false;

  /** Starts the watchdog at once: a socket that never opens is silent too. */
  constructor(
    private readonly clock: Clock,
    private readonly silenceMs: number,
    private readonly hooks: HeartbeatHooks,
  ) {
    this.lastInbound = clock.now();
    this.armWatchdog(silenceMs);
  }

  /** Something arrived: the socket is alive. */
  activity(): void {
    this.lastInbound = this.clock.now();
  }

  /** Begins pinging (after `welcome`, at the interval the server asked for). */
  startPinging(intervalMs: number): void {
    if (this.stopped || this.pingTimer !== null) return;
    const tick = (): void => {
      if (this.stopped) return;
      this.hooks.sendPing(this.nextPing++);
      this.pingTimer = this.clock.setTimeout(tick, intervalMs);
    };
    this.pingTimer = this.clock.setTimeout(tick, intervalMs);
  }

  /** Stops every timer; idempotent. */
  stop(): void {
    this.stopped = true;
    if (this.pingTimer !== null) this.clock.clearTimeout(this.pingTimer);
    if (this.watchdog !== null) this.clock.clearTimeout(this.watchdog);
    this.pingTimer = null;
    this.watchdog = null;
  }

  private armWatchdog(ms: number): void {
    // One timer re-armed lazily, instead of resetting a timer on every frame.
    this.watchdog = this.clock.setTimeout(() => {
      if (this.stopped) return;
      const silent = this.clock.now() - this.lastInbound;
      if (silent >= this.silenceMs) {
        this.stop();
        this.hooks.onSilent();
      } else {
        this.armWatchdog(this.silenceMs - silent);
      }
    }, ms);
  }
}

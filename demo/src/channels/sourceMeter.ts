/**
 * Counts each channel source's subscribes and releases per target, so tests
 * can prove every binding released its listener exactly once (SPEC §7: the
 * SDK tears down exactly once; a leak would show as subscribed > released).
 */
import { targetKey, type Target } from '../../../src/protocol/index.js';
import type { ChannelDeclaration, ChannelSource } from '../../../src/sdk/index.js';

/** Lifecycle counts of one channel on one target. */
export interface SourceCount {
  subscribed: number;
  released: number;
}

/** The meter: wraps sources and reports their counts. */
export class SourceMeter {
  private readonly counts = new Map<string, SourceCount>();

  /** `source`, counted under `channelId@target`. */
  wrap<C extends ChannelDeclaration>(target: Target, channel: C, source: ChannelSource<C>): ChannelSource<C> {
    const key = `${channel.channelId}@${targetKey(target)}`;
    const count = this.counts.get(key) ?? { subscribed: 0, released: 0 };
    this.counts.set(key, count);
    return {
      subscribe(options, emit) {
        const release = source.subscribe(options, emit);
        count.subscribed += 1;
        return () => {
          count.released += 1;
          release();
        };
      },
    };
  }

  /** Every count so far, by `channelId@target` (e.g. `data.quotes@session`). */
  snapshot(): Record<string, SourceCount> {
    return Object.fromEntries([...this.counts].map(([key, count]) => [key, { ...count }]));
  }
}

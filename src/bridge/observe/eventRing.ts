/**
 * One subscription's ring buffer (SPEC §7): every event, and every event
 * dropped for an invalid or oversized projection, takes the next sequence
 * number; the ring keeps the newest `capacity` sequences. Slots are parallel
 * preallocated arrays, so pushing allocates nothing.
 */

/** A slot's binding index when the slot holds a dropped marker. */
const DROPPED = -1;

/** One event as a poll reads it (the subscription adds target, ids and time text). */
export interface RingEvent {
  sequence: number;
  bindingIndex: number;
  receivedAtMs: number;
  payload: unknown;
}

/** What one poll read. */
export interface RingRead {
  events: RingEvent[];
  lastSequence: number;
  /** Every sequence below it in the window that was not returned was dropped; null when none was. */
  droppedBeforeSequence: number | null;
  droppedCount: number;
}

/** A bounded ring of sequenced events and drop markers. */
export class EventRing {
  /** The highest sequence assigned so far. */
  lastSequence: number;
  /** Sequences dropped so far: evicted events and drop markers. */
  droppedTotal = 0;
  private retained = 0;
  private readonly bindings: Int16Array;
  private readonly times: Float64Array;
  private readonly payloads: unknown[];

  /** `startAfter` continues a numbering whose events are gone (a restored subscription). */
  constructor(
    readonly capacity: number,
    startAfter = 0,
  ) {
    this.bindings = new Int16Array(capacity);
    this.times = new Float64Array(capacity);
    this.payloads = new Array<unknown>(capacity).fill(undefined);
    this.lastSequence = startAfter;
    this.droppedTotal = startAfter;
  }

  /** The oldest sequence still held (lastSequence + 1 when the ring is empty). */
  get oldestRetained(): number {
    return this.lastSequence - this.retained + 1;
  }

  /** Appends an event of binding `bindingIndex`. */
  push(bindingIndex: number, payload: unknown, receivedAtMs: number): void {
    const slot = this.advance();
    this.bindings[slot] = bindingIndex;
    this.times[slot] = receivedAtMs;
    this.payloads[slot] = payload;
  }

  /** Appends a drop marker: the sequence is taken, the event is gone. */
  drop(): void {
    const slot = this.advance();
    this.bindings[slot] = DROPPED;
    this.payloads[slot] = undefined;
    this.droppedTotal++;
  }

  private advance(): number {
    const sequence = ++this.lastSequence;
    const slot = (sequence - 1) % this.capacity;
    if (this.retained < this.capacity) this.retained++;
    else if (this.bindings[slot] !== DROPPED) this.droppedTotal++; // an evicted event
    return slot;
  }

  /**
   * Events after `afterSequence` (from the oldest retained when omitted), at
   * most `limit`. The window W runs from `afterSequence + 1` to the last
   * returned event, or to `lastSequence` when none is returned;
   * `droppedCount` counts exactly the dropped sequences of W and
   * `droppedBeforeSequence` is one past the highest of them. So a reader that
   * continues after the last event it saw (or after `droppedBeforeSequence -
   * 1` when it saw none) counts every drop exactly once. Reads nothing away.
   */
  read(afterSequence: number | undefined, limit: number): RingRead {
    const after = afterSequence ?? 0;
    const oldest = this.oldestRetained;
    const events: RingEvent[] = [];
    // Markers before the last returned event, and those seen since it (the next window's, unless none is returned).
    let markers = 0;
    let highestMarker = 0;
    let pending = 0;
    let highestPending = 0;
    for (
      let sequence = Math.max(after + 1, oldest);
      sequence <= this.lastSequence && events.length < limit;
      sequence++
    ) {
      const slot = (sequence - 1) % this.capacity;
      const bindingIndex = this.bindings[slot] ?? DROPPED;
      if (bindingIndex === DROPPED) {
        pending++;
        highestPending = sequence;
        continue;
      }
      if (pending > 0) [markers, highestMarker, pending] = [markers + pending, highestPending, 0];
      events.push({ sequence, bindingIndex, receivedAtMs: this.times[slot] ?? 0, payload: this.payloads[slot] });
    }
    const last = events[events.length - 1];
    const end = last ? last.sequence : this.lastSequence;
    if (!last) [markers, highestMarker] = [pending, highestPending];
    const evictedEnd = Math.min(end, oldest - 1);
    const evicted = Math.max(0, evictedEnd - after);
    const droppedCount = evicted + markers;
    const highest = Math.max(highestMarker, evicted > 0 ? evictedEnd : 0);
    return {
      events,
      lastSequence: this.lastSequence,
      droppedBeforeSequence: droppedCount > 0 ? highest + 1 : null,
      droppedCount,
    };
  }
}

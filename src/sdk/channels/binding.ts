/**
 * One live binding: its source's listener and the per-event path. Each raw
 * event is projected and handed to the bridge's sink as a payload or as a drop
 * marker; after close nothing more reaches the sink, and the source's
 * unsubscribe runs exactly once. The per-event path allocates only the
 * projection and its `{bindingId, payload}` wrapper (drop markers are shared).
 */
import type { BindingSink, BindingSinkEvent } from '../types.js';
import type { ChannelSource } from './declareChannel.js';
import { DROP_INVALID, DROP_OVERSIZED, type EventBounds, type Projector } from './projection.js';

type State = 'new' | 'open' | 'closed';

/** A binding of one channel source to the bridge's sink. */
export class Binding {
  private state: State = 'new';
  private unsubscribe: (() => void) | null = null;
  private readonly invalid: BindingSinkEvent;
  private readonly oversized: BindingSinkEvent;
  /** The function the source calls with each raw event. */
  readonly emit: (raw: unknown) => void;

  constructor(
    readonly bindingId: string,
    private readonly project: Projector,
    private readonly bounds: EventBounds,
    private readonly sink: BindingSink,
  ) {
    this.invalid = Object.freeze({ bindingId, dropped: 'invalid' });
    this.oversized = Object.freeze({ bindingId, dropped: 'oversized' });
    this.emit = (raw) => this.deliver(raw);
  }

  /**
   * Subscribes the source. Events it emits during `subscribe` are delivered.
   * Returns false (and releases nothing, since nothing was bound) when it throws.
   */
  open(source: ChannelSource, options: unknown): boolean {
    this.state = 'open';
    let unsubscribe: unknown;
    try {
      unsubscribe = source.subscribe(options as never, this.emit);
    } catch {
      this.state = 'closed';
      return false;
    }
    const release = typeof unsubscribe === 'function' ? (unsubscribe as () => void) : null;
    // The source may have been stopped from inside its own subscribe.
    if ((this.state as State) === 'closed') runQuietly(release);
    else this.unsubscribe = release;
    return true;
  }

  /** Stops delivery and releases the source's listener; a second call does nothing. */
  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    const release = this.unsubscribe;
    this.unsubscribe = null;
    runQuietly(release);
  }

  private deliver(raw: unknown): void {
    if (this.state !== 'open') return;
    let projected: unknown;
    try {
      projected = this.project(raw, this.bounds);
    } catch {
      projected = DROP_INVALID;
    }
    const event =
      projected === DROP_INVALID
        ? this.invalid
        : projected === DROP_OVERSIZED
          ? this.oversized
          : { bindingId: this.bindingId, payload: projected };
    try {
      this.sink(event);
    } catch {
      // A failing sink must not break the host's source; the bridge owns its own errors.
    }
  }
}

function runQuietly(release: (() => void) | null): void {
  try {
    release?.();
  } catch {
    // A source whose teardown throws is still released as far as the SDK is concerned.
  }
}

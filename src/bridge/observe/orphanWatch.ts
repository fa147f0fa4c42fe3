/**
 * Subscriptions whose MCP attachment vanished without an `attachment.ended`
 * reaching this page (the page was offline when it ended, or the server was
 * restarted and its attachments are new). An attachment missing from every
 * `attachments` list for {@link ORPHAN_GRACE_MS} while the session is open is
 * treated as detached. The grace exists because a front that follows its hub
 * to a new process resumes its attachments under their kept ids, a little
 * after the page has reconnected.
 */
import type { Clock, TimerHandle } from '../relay/clock.js';

/** How long an owner may be missing from the attachments lists. */
export const ORPHAN_GRACE_MS = 60_000;

/** What the watch needs around it. */
export interface OrphanWatchDeps {
  clock: Clock;
  /** Attachments owning an active subscription. */
  owners(): Iterable<string>;
  /** Stops one attachment's subscriptions (`attachment-detached`). */
  end(attachmentId: string): void;
  /** Whether the session is open now (a closed one hears no lists). */
  isOpen(): boolean;
}

/** Watches the attachments lists for owners that are gone. */
export class OrphanWatch {
  private listed: ReadonlySet<string> = new Set();
  private readonly timers = new Map<string, TimerHandle>();

  constructor(private readonly deps: OrphanWatchDeps) {}

  /** An `attachments` frame listed these attachments. */
  listedNow(attachmentIds: readonly string[]): void {
    this.listed = new Set(attachmentIds);
    for (const owner of this.deps.owners()) {
      if (this.listed.has(owner)) this.cancel(owner);
      else if (!this.timers.has(owner)) {
        this.timers.set(
          owner,
          this.deps.clock.setTimeout(() => this.expire(owner), ORPHAN_GRACE_MS),
        );
      }
    }
  }

  /** Stops every timer. */
  close(): void {
    for (const owner of [...this.timers.keys()]) this.cancel(owner);
  }

  private expire(owner: string): void {
    this.timers.delete(owner);
    // Offline, nothing is known; the next list decides again.
    if (this.deps.isOpen() && !this.listed.has(owner)) this.deps.end(owner);
  }

  private cancel(owner: string): void {
    const timer = this.timers.get(owner);
    if (timer !== undefined) this.deps.clock.clearTimeout(timer);
    this.timers.delete(owner);
  }
}

/**
 * Routes broker-driven revision bumps of one controller: while one of its
 * controls runs, through that call's handle (so the SDK knows the control
 * bumped the domain itself and does not bump it again); otherwise, for a
 * fill, a market trigger or the person's own action, through the mount.
 */
import type { ControlContext, RevisionHandle } from '../../../src/sdk/index.js';

/** One controller's revision bumps. */
export class RevisionRouter {
  private mounted: RevisionHandle | null = null;
  private active: RevisionHandle | null = null;

  /** The mounted controller's handle, once mounted. */
  attach(handle: RevisionHandle): void {
    this.mounted = handle;
  }

  /** Bumps a domain of this controller. */
  bump(domain: string): void {
    (this.active ?? this.mounted)?.bump(domain);
  }

  /** Runs a control with its call's handle active. */
  async during<T>(ctx: ControlContext, run: () => Promise<T>): Promise<T> {
    const previous = this.active;
    this.active = ctx.revisions;
    try {
      return await run();
    } finally {
      this.active = previous;
    }
  }
}

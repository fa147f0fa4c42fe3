/**
 * Following the hub across processes (SPEC §9): when the link to the hub
 * drops, a front first looks for a hub in `hub.json` that answers (another
 * front may have taken over already), else tries to become the hub itself by
 * binding the relay port — the OS bind decides a race between fronts — and
 * retries with jittered, capped backoff. Requests in flight on the dropped
 * link have resolved as lost already; nothing is replayed.
 */
import type { Logger } from '../log.js';
import type { JoinedHub } from './discovery.js';
import type { FollowingHub, ResumableHub } from './followingHub.js';

/** Options of a {@link HubFollower}. */
export interface HubFollowerOptions {
  hub: FollowingHub;
  logger: Logger;
  /** Links to the hub `hub.json` names; null when none answers. */
  join: () => Promise<JoinedHub | null>;
  /** Binds the relay port and serves as the hub; null when another process holds the port. */
  takeOver: () => Promise<ResumableHub | null>;
  /** First retry delay; doubles up to `capMs`, each drawn uniformly below it. */
  baseMs?: number;
  capMs?: number;
  random?: () => number;
}

/** Keeps one {@link FollowingHub} connected to whichever hub serves the home. */
export class HubFollower {
  private joined: JoinedHub | null = null;
  private stopped = false;
  private following: Promise<void> | null = null;

  constructor(private readonly options: HubFollowerOptions) {}

  /** Starts from `hub.json`: joins its hub at once, or becomes the hub when it does not answer. */
  start(): void {
    this.following = this.relink(false);
  }

  /** Follows a joined hub; when its link drops, finds or becomes the next one. */
  async follow(joined: JoinedHub): Promise<void> {
    if (this.stopped) return joined.remote.close();
    this.joined = joined;
    await this.options.hub.use(joined.remote);
    this.options.logger.info('linked to the hub', { hubPid: joined.welcome.pid });
    void joined.remote.closed.then(() => {
      if (this.joined !== joined || this.stopped) return;
      this.joined = null;
      this.options.hub.lose();
      this.options.logger.info('hub link lost; following', { hubPid: joined.welcome.pid });
      this.following = this.relink(true);
    });
  }

  /** Resolves once the current search for the next hub (if any) has ended. */
  settled(): Promise<void> {
    return this.following ?? Promise.resolve();
  }

  /** Stops following and closes the link (the hub detaches this process's attachments). */
  stop(): void {
    this.stopped = true;
    this.joined?.remote.close();
    this.joined = null;
  }

  private async relink(afterLoss: boolean): Promise<void> {
    const { baseMs = 100, capMs = 2_000, random = Math.random } = this.options;
    for (let attempt = 0; !this.stopped; attempt++) {
      // Spread the fronts out: the first to bind wins, the others then find it in hub.json.
      if (afterLoss || attempt > 0) await sleep(random() * Math.min(capMs, baseMs * 2 ** attempt));
      if (this.stopped) return;
      const joined = await this.options.join().catch(() => null);
      if (joined) return this.follow(joined);
      const own = await this.options.takeOver().catch((error: unknown) => {
        if (attempt === 0) this.options.logger.warn('cannot take over the hub yet', { reason: errorCode(error) });
        return null;
      });
      if (own) {
        this.options.logger.info('took over as the hub');
        return this.options.hub.use(own);
      }
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown';
}

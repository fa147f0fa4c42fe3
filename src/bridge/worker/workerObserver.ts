/**
 * Subscriptions and snapshots of one page runtime, in the bridge worker
 * (SPEC §7, §8): the registry and its rings, fed by the binding events the
 * page posts on the host-call link, the journal that turns a restart into `bridge-restarted`
 * tombstones, and the snapshot encoder.
 */
import type { RequestFrame, Target } from '../../protocol/index.js';
import type { Clock, TimerHandle } from '../relay/clock.js';
import type { EventPortMessage } from '../link/eventBatch.js';
import type { RelayOutcome } from '../relay/clientFrames.js';
import type { ObservePort } from '../observe/observeTypes.js';
import { OrphanWatch } from '../observe/orphanWatch.js';
import type { HandlerHooks } from '../relay/clientSessions.js';
import type { ImageEncoder } from '../observe/snapshotEncode.js';
import { takeSnapshot } from '../observe/snapshotService.js';
import type { Subscription } from '../observe/subscription.js';
import type { StoredSubscription, SubscriptionJournal } from '../observe/subscriptionJournal.js';
import { SubscriptionRegistry } from '../observe/subscriptionRegistry.js';

/** How often, at most, a session's subscriptions are written to the journal. */
export const JOURNAL_SAVE_DELAY_MS = 1000;
/** How long the first request waits for the journal before serving without it. */
export const JOURNAL_LOAD_TIMEOUT_MS = 2000;

/** What the observer runs on. */
export interface ObserverDeps {
  port: ObservePort;
  clock: Clock;
  journal?: SubscriptionJournal;
  encoder?: ImageEncoder;
  /** Whether the page's session is open now (default: always). */
  sessionOpen?: () => boolean;
}

function toStored(sub: Subscription): StoredSubscription {
  const { subscriptionId, attachmentId, target, bindings, startedAtMs } = sub.init;
  const stored: StoredSubscription = {
    subscriptionId,
    attachmentId,
    target,
    bindings,
    startedAtMs,
    lastSequence: sub.ring.lastSequence,
  };
  if (sub.stoppedAtMs !== null && sub.reason !== null)
    Object.assign(stored, { stoppedAtMs: sub.stoppedAtMs, reason: sub.reason });
  return stored;
}

/** The worker side of subscriptions and snapshots for one page. */
export class WorkerObserver {
  readonly registry: SubscriptionRegistry;
  private readonly dirty = new Set<string>();
  private saveTimer: TimerHandle | null = null;
  private restored: Promise<void> = Promise.resolve();
  private readonly orphans: OrphanWatch;

  constructor(private readonly deps: ObserverDeps) {
    this.registry = new SubscriptionRegistry({
      port: deps.port,
      now: () => deps.clock.now(),
      onChange: (id) => this.changed(id),
    });
    this.orphans = new OrphanWatch({
      clock: deps.clock,
      owners: () => this.registry.activeOwners(),
      end: (attachmentId) => this.registry.attachmentEnded(attachmentId),
      isOpen: deps.sessionOpen ?? (() => true),
    });
  }

  /** Applies one batch of binding events, or a target's unregistration, from the page (parsed by the link). */
  receive(message: EventPortMessage): void {
    if (message.t === 'events') this.registry.receive(message.h, message.p, this.deps.clock.now());
    else this.registry.targetUnregistered(message.target);
  }

  /** Loads what an earlier worker of this tab's session left; its active subscriptions become `bridge-restarted`. */
  restore(sessionId: string | null | undefined): void {
    const { journal, clock } = this.deps;
    if (!sessionId || !journal) return;
    let timer: TimerHandle | null = null;
    const timeout = new Promise<StoredSubscription[]>((resolve) => {
      timer = clock.setTimeout(() => resolve([]), JOURNAL_LOAD_TIMEOUT_MS);
    });
    this.restored = Promise.race([journal.load(sessionId), timeout])
      .then((entries) => {
        const now = clock.now();
        for (const { stoppedAtMs, reason, ...entry } of entries) {
          this.registry.restore({ ...entry, sessionId }, stoppedAtMs ?? now, reason ?? 'bridge-restarted');
        }
        if (entries.length > 0) this.changed(sessionId);
      })
      .catch(() => undefined) // an unreadable journal: unknown ids stay subscription_not_found
      .finally(() => clock.clearTimeout(timer));
  }

  /** Serves a subscribe or snapshot request; null for any other kind. */
  async handle(request: RequestFrame, hooks: HandlerHooks): Promise<RelayOutcome | null> {
    const { op } = request;
    if (op.kind === 'subscribe') {
      await this.restored;
      const ctx = { sessionId: request.sessionId, attachment: request.attachment, limits: request.limits };
      return this.registry.handle(ctx, op.input);
    }
    if (op.kind !== 'snapshot') return null;
    const { port, encoder, clock } = this.deps;
    return takeSnapshot({ port, encoder, now: () => clock.now() }, request.limits, op, hooks.progress);
  }

  /** An MCP attachment ended. */
  attachmentEnded(attachmentId: string): void {
    this.registry.attachmentEnded(attachmentId);
  }

  /** An `attachments` frame: owners missing from it for a while are treated as detached. */
  attachmentsListed(attachmentIds: readonly string[]): void {
    this.orphans.listedNow(attachmentIds);
  }

  /** The SDK unregistered a target (also reachable through the host-call link). */
  targetUnregistered(target: Target): void {
    this.registry.targetUnregistered(target);
  }

  /** The session closed: every subscription stops with `session-closed`, and the journal is written now. */
  close(): void {
    this.orphans.close();
    this.registry.sessionClosed();
    this.flush();
  }

  private changed(sessionId: string): void {
    if (!this.deps.journal) return;
    this.dirty.add(sessionId);
    if (this.saveTimer === null) this.saveTimer = this.deps.clock.setTimeout(() => this.flush(), JOURNAL_SAVE_DELAY_MS);
  }

  private flush(): void {
    if (this.saveTimer !== null) this.deps.clock.clearTimeout(this.saveTimer);
    this.saveTimer = null;
    const journal = this.deps.journal;
    if (!journal) return;
    for (const sessionId of this.dirty) {
      void journal.save(sessionId, this.registry.ofSession(sessionId).map(toStored)).catch(() => undefined);
    }
    this.dirty.clear();
  }
}

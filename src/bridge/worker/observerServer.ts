/**
 * The bridge worker's side of the embedded bridge (SPEC §1, §7, §8): the page
 * owns the relay socket and its session and forwards here what observes
 * (subscribe and snapshot requests, attachment notices, the session's id and
 * state); the worker keeps the subscriptions' ring buffers, the journal and
 * the snapshot encoder off the page's main thread, and asks the page's host
 * SDK for bindings and captures on the same link (`observeLink.ts` in
 * src/protocol). It also keeps the page's relay timers, which a hidden tab
 * would throttle below the heartbeat's needs.
 */
import { makeError } from '../../protocol/index.js';
import {
  PageToWorkerSchema,
  type PageObserveMessage,
  type PageToWorker,
  type WorkerObserveMessage,
} from '../../protocol/wire/observeLink.js';
import { BridgeHostLink, type PageNotice } from '../link/bridgeHostLink.js';
import { cloneCodec } from '../link/linkCodecs.js';
import { batchingEndpoint } from '../link/linkBatch.js';
import { portEndpoint, type PortLike } from '../link/linkEndpoint.js';
import type { ImageEncoder } from '../observe/snapshotEncode.js';
import type { SubscriptionJournal } from '../observe/subscriptionJournal.js';
import { pageDefect } from '../page/pageError.js';
import type { RelayOutcome } from '../relay/clientFrames.js';
import { systemClock, type Clock, type TimerHandle } from '../relay/clock.js';
import { LazyAbort } from '../relay/lazyAbort.js';
import { WorkerObserver } from './workerObserver.js';

/** What the worker side runs on. */
export interface ObserverServerDeps {
  /** The observer's clock (journal writes, orphaned subscriptions); default the worker's. */
  clock?: Clock;
  /** Where the page's relay timers run; default the worker's own (not throttled in a hidden tab). */
  timers?: Clock;
  /** Where subscription ids outlive the worker (else a restart forgets them). */
  journal?: SubscriptionJournal;
  /** Scales and encodes snapshots (default: OffscreenCanvas). */
  encoder?: ImageEncoder;
}

const UNANSWERED = pageDefect('The page did not answer this request; reload the terminal tab.');
const FAILED = 'The bridge worker failed while serving this request; this is a defect of the bridge.';

/** Serves one page's observer on `port` until the page closes it. */
class ObserverServer {
  private readonly link: BridgeHostLink<PageObserveMessage>;
  private readonly observer: WorkerObserver;
  private readonly running = new Map<string, LazyAbort>();
  private readonly timers = new Map<number, TimerHandle>();
  private readonly timerClock: Clock;
  private sessionId: string | null = null;
  private open = false;
  private told = false;
  private closed = false;

  constructor(
    private readonly endpoint: ReturnType<typeof batchingEndpoint>,
    private readonly deps: ObserverServerDeps,
  ) {
    this.timerClock = deps.timers ?? systemClock;
    this.link = new BridgeHostLink<PageObserveMessage>({
      endpoint,
      codec: cloneCodec,
      inbound: PageToWorkerSchema,
      onNotice: (message) => this.receive(message),
      unanswered: UNANSWERED,
    });
    this.observer = new WorkerObserver({
      port: this.link,
      clock: deps.clock ?? systemClock,
      journal: deps.journal,
      encoder: deps.encoder,
      sessionOpen: () => this.open,
    });
  }

  private receive(message: PageNotice | PageObserveMessage): void {
    switch (message.t) {
      case 'events':
      case 'targetUnregistered':
        return this.observer.receive(message);
      case 'observe':
        return void this.serve(message.id, message.request);
      case 'observeCancel':
        return this.running.get(message.id)?.abort();
      case 'session':
        return this.session(message.sessionId, message.open);
      case 'attachmentEnded':
        return this.observer.attachmentEnded(message.attachmentId);
      case 'attachmentsListed':
        return this.observer.attachmentsListed(message.attachmentIds);
      case 'timer':
        return this.startTimer(message.id, message.ms);
      case 'clearTimer':
        this.timerClock.clearTimeout(this.timers.get(message.id));
        return void this.timers.delete(message.id);
      case 'closeObserver':
        return this.close();
    }
  }

  private async serve(id: string, request: Extract<PageToWorker, { t: 'observe' }>['request']): Promise<void> {
    // Its signal is made only if the observer reads it.
    const hooks = Object.assign(new LazyAbort(), {
      progress: (progress: number, total?: number) => this.send({ t: 'observeProgress', id, progress, total }),
    });
    this.running.set(id, hooks);
    let outcome: RelayOutcome | null;
    try {
      outcome = await this.observer.handle(request, hooks);
    } catch {
      outcome = { ok: false, error: makeError('internal_error', FAILED) };
    }
    this.running.delete(id);
    this.send({ t: 'observed', id, outcome });
  }

  /** The first notice names the kept id (its journal is read); a new id later closes the old one's subscriptions. */
  private session(sessionId: string | null, open: boolean): void {
    if (!this.told) this.observer.restore(sessionId);
    else if (this.sessionId !== null && sessionId !== null && sessionId !== this.sessionId) {
      this.observer.registry.sessionClosed(this.sessionId);
    }
    this.told = true;
    this.sessionId = sessionId ?? this.sessionId;
    this.open = open;
  }

  private startTimer(id: number, ms: number): void {
    const handle = this.timerClock.setTimeout(() => {
      this.timers.delete(id);
      this.send({ t: 'tick', id });
    }, ms);
    this.timers.set(id, handle);
  }

  private send(message: WorkerObserveMessage): void {
    if (this.closed) return;
    try {
      this.endpoint.post(message);
    } catch {
      // The page is gone (the tab is closing): no one is left to tell.
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const handle of this.timers.values()) this.timerClock.clearTimeout(handle);
    this.timers.clear();
    for (const call of this.running.values()) call.abort();
    this.observer.close();
    this.link.close();
    // On the worker's own scope this ends the worker, once the journal's last write is under way.
    this.endpoint.close();
  }
}

/** Serves the page's observer on `port` (the worker's own scope, or a MessagePort in tests). */
export function serveObserver(port: PortLike, deps: ObserverServerDeps = {}): { close(): void } {
  const server = new ObserverServer(batchingEndpoint(portEndpoint(port)), deps);
  return { close: () => server.close() };
}

/**
 * Subscriptions of the bridge worker (SPEC §7): start, poll, stop and list per
 * attachment, limits per session, tombstones, and the event path from the
 * page's bindings into each subscription's ring. Nothing here lives on the
 * page's main thread; the page only starts and stops sources.
 */
import {
  TOMBSTONES_KEPT,
  TOMBSTONE_TTL_MS,
  limitExceeded,
  targetKey,
  type StopReason,
  type SubscribeInput,
  type Target,
} from '../../protocol/index.js';
import type { RelayOutcome } from '../relay/clientFrames.js';
import type { BindingStart, ObserveContext, ObservePort } from './observeTypes.js';
import { Subscription, type SubscriptionInit } from './subscription.js';
import { duplicateBinding, pageUnavailable, startOvertaken, subscriptionNotFound } from './subscriptionErrors.js';

type StartInput = Extract<SubscribeInput, { action: 'start' }>;
type PollInput = Extract<SubscribeInput, { action: 'poll' }>;

/** What the registry needs around it. */
export interface RegistryOptions {
  port: Pick<ObservePort, 'startBinding' | 'stopBinding'>;
  now?: () => number;
  /** A fresh opaque subscription id. */
  newId?: () => string;
  /** A session's subscriptions changed (started, stopped, or new events). */
  onChange?: (sessionId: string) => void;
}

interface HandleSlot {
  sub: Subscription;
  bindingIndex: number;
}

/** A random id that needs no secure context (`crypto.randomUUID` does). */
export function randomSubscriptionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `sub-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

const ok = (data: unknown): RelayOutcome => ({ ok: true, data });
const ignore = (): undefined => undefined;

/** Every subscription of one bridge runtime, across its sessions. */
export class SubscriptionRegistry {
  private readonly subs = new Map<string, Subscription>();
  private readonly slots = new Map<number, HandleSlot>();
  private nextHandle = 1;
  private readonly now: () => number;
  private readonly newId: () => string;

  constructor(private readonly options: RegistryOptions) {
    this.now = options.now ?? Date.now;
    this.newId = options.newId ?? randomSubscriptionId;
  }

  /** Runs one `tradescript_subscribe` action for `ctx`'s attachment. */
  async handle(ctx: ObserveContext, input: SubscribeInput): Promise<RelayOutcome> {
    this.prune(ctx.sessionId);
    switch (input.action) {
      case 'start':
        return this.start(ctx, input);
      case 'poll':
        return this.poll(ctx, input);
      case 'stop': {
        const sub = this.owned(ctx, input.subscriptionId);
        if (!sub) return { ok: false, error: subscriptionNotFound() };
        this.stopOne(sub, 'stopped');
        return ok(sub.summary());
      }
      case 'list':
        return ok({ subscriptions: this.visible(ctx).map((sub) => sub.summary()) });
    }
  }

  /**
   * Appends one batch of the page's events. `handles[i]` names the binding
   * (negative: a dropped marker of binding `-handles[i]`), `payloads[i]` its
   * projection. Events of unknown or stopped bindings are ignored.
   */
  receive(handles: readonly unknown[], payloads: readonly unknown[], receivedAtMs: number): void {
    let session: string | null = null;
    for (let i = 0; i < handles.length; i++) {
      const raw = handles[i];
      if (typeof raw !== 'number') continue;
      const slot = this.slots.get(raw < 0 ? -raw : raw);
      if (slot === undefined || slot.sub.state === 'stopped') continue;
      if (raw < 0) slot.sub.ring.drop();
      else slot.sub.ring.push(slot.bindingIndex, payloads[i], receivedAtMs);
      if (session !== slot.sub.init.sessionId) {
        if (session !== null) this.changed(session);
        session = slot.sub.init.sessionId;
      }
    }
    if (session !== null) this.changed(session);
  }

  /** The SDK released a target's sources: its subscriptions become `target-unregistered` tombstones. */
  targetUnregistered(target: Target): void {
    const key = targetKey(target);
    this.stopWhere((sub) => targetKey(sub.init.target) === key, 'target-unregistered', false);
  }

  /** An MCP attachment ended: its subscriptions stop with `attachment-detached`. */
  attachmentEnded(attachmentId: string): void {
    this.stopWhere((sub) => sub.init.attachmentId === attachmentId, 'attachment-detached', true);
  }

  /** A session closed (or every session, when none is named). */
  sessionClosed(sessionId?: string): void {
    this.stopWhere((sub) => sessionId === undefined || sub.init.sessionId === sessionId, 'session-closed', true);
  }

  /** Attachments owning an active (or starting) subscription. */
  activeOwners(): Set<string> {
    const owners = new Set<string>();
    for (const sub of this.subs.values()) if (sub.state !== 'stopped') owners.add(sub.init.attachmentId);
    return owners;
  }

  /** Every visible subscription of a session (for the journal). */
  ofSession(sessionId: string): Subscription[] {
    return [...this.subs.values()].filter((sub) => sub.init.sessionId === sessionId && sub.state !== 'starting');
  }

  /** Adds a tombstone remembered from an earlier runtime (a restarted worker). */
  restore(init: Omit<SubscriptionInit, 'capacity'>, stoppedAtMs: number, reason: StopReason): void {
    if (this.subs.has(init.subscriptionId)) return;
    const sub = new Subscription({ ...init, capacity: 1 });
    sub.markStopped(reason, stoppedAtMs);
    this.subs.set(sub.id, sub);
    this.prune(init.sessionId);
  }

  private async start(ctx: ObserveContext, input: StartInput): Promise<RelayOutcome> {
    const { limits } = ctx;
    if (input.bindings.length > limits.bindingsPerSubscription) {
      return {
        ok: false,
        error: limitExceeded('bindingsPerSubscription', limits.bindingsPerSubscription),
      };
    }
    const seen = new Set<string>();
    for (const [index, binding] of input.bindings.entries()) {
      if (seen.has(binding.bindingId)) return { ok: false, error: duplicateBinding(index) };
      seen.add(binding.bindingId);
    }
    const active = [...this.subs.values()].filter((s) => s.init.sessionId === ctx.sessionId && s.state !== 'stopped');
    if (active.length >= limits.subscriptionsPerSession) {
      return { ok: false, error: limitExceeded('subscriptionsPerSession', limits.subscriptionsPerSession) };
    }
    const sub = new Subscription({
      subscriptionId: this.newId(),
      sessionId: ctx.sessionId,
      attachmentId: ctx.attachment.attachmentId,
      target: input.target,
      bindings: input.bindings.map(({ bindingId, channelId }) => ({ bindingId, channelId })),
      startedAtMs: this.now(),
      capacity: limits.bufferedEvents,
    });
    this.subs.set(sub.id, sub);
    const failure = await this.startBindings(ctx, input, sub);
    if (failure !== null) {
      this.release(sub);
      this.subs.delete(sub.id);
      return { ok: false, error: failure };
    }
    sub.state = 'active';
    this.changed(ctx.sessionId);
    return ok(sub.started());
  }

  /** Starts each binding in order; the first failure (or an overtaking stop) is returned. */
  private async startBindings(ctx: ObserveContext, input: StartInput, sub: Subscription) {
    for (const [bindingIndex, binding] of input.bindings.entries()) {
      const handle = this.nextHandle++;
      this.slots.set(handle, { sub, bindingIndex });
      const request = {
        sessionId: ctx.sessionId,
        subscriptionId: sub.id,
        bindingId: binding.bindingId,
        channelId: binding.channelId,
        target: input.target,
        options: binding.options,
        attachment: ctx.attachment,
        bindingIndex,
        limits: { jsonDepth: ctx.limits.jsonDepth, stringLength: ctx.limits.stringLength },
      };
      const result: BindingStart = await this.options.port
        .startBinding(request, handle)
        .catch(() => ({ ok: false as const, error: pageUnavailable() }));
      if (!result.ok) {
        this.slots.delete(handle);
        return result.error;
      }
      sub.handles[bindingIndex] = handle;
      if (sub.state === 'stopped') return startOvertaken(sub.reason === 'target-unregistered');
    }
    return null;
  }

  private poll(ctx: ObserveContext, input: PollInput): RelayOutcome {
    const sub = this.owned(ctx, input.subscriptionId);
    if (!sub) return { ok: false, error: subscriptionNotFound() };
    const max = ctx.limits.eventsPerPoll;
    if (input.limit !== undefined && input.limit > max) {
      return {
        ok: false,
        error: limitExceeded('eventsPerPoll', max),
      };
    }
    return ok(sub.poll(input.afterSequence, input.limit ?? max));
  }

  /** A visible subscription of this attachment in this session. */
  private owned(ctx: ObserveContext, subscriptionId: string): Subscription | undefined {
    const sub = this.subs.get(subscriptionId);
    if (!sub || sub.state === 'starting') return undefined;
    if (sub.init.sessionId !== ctx.sessionId || sub.init.attachmentId !== ctx.attachment.attachmentId) return undefined;
    return sub;
  }

  private visible(ctx: ObserveContext): Subscription[] {
    return this.ofSession(ctx.sessionId).filter((sub) => sub.init.attachmentId === ctx.attachment.attachmentId);
  }

  private stopWhere(match: (sub: Subscription) => boolean, reason: StopReason, releaseSources: boolean): void {
    const sessions = new Set<string>();
    for (const sub of [...this.subs.values()]) {
      if (sub.state === 'stopped' || !match(sub)) continue;
      this.stopOne(sub, reason, releaseSources);
      sessions.add(sub.init.sessionId);
    }
    for (const sessionId of sessions) this.prune(sessionId);
  }

  /** Tombstones one subscription, tearing each of its bindings down once. */
  private stopOne(sub: Subscription, reason: StopReason, releaseSources = true): void {
    if (!sub.markStopped(reason, this.now())) return;
    if (releaseSources) this.release(sub);
    else for (const handle of sub.handles) this.slots.delete(handle);
    sub.handles.length = 0;
    this.changed(sub.init.sessionId);
  }

  /** Stops the page's sources of every binding started so far. */
  private release(sub: Subscription): void {
    for (const [index, handle] of sub.handles.entries()) {
      if (handle === undefined) continue;
      this.slots.delete(handle);
      const bindingId = sub.init.bindings[index]?.bindingId ?? '';
      try {
        void Promise.resolve(this.options.port.stopBinding(sub.id, bindingId)).catch(ignore);
      } catch {
        // The page is gone: its sources went with it.
      }
    }
    sub.handles.length = 0;
  }

  /** Keeps the newest tombstones of a session, none older than the TTL. */
  private prune(sessionId: string): void {
    const now = this.now();
    const stopped = [...this.subs.values()]
      .filter((sub) => sub.init.sessionId === sessionId && sub.state === 'stopped')
      .sort((a, b) => (b.stoppedAtMs ?? 0) - (a.stoppedAtMs ?? 0));
    for (const [index, sub] of stopped.entries()) {
      if (index >= TOMBSTONES_KEPT || now - (sub.stoppedAtMs ?? 0) > TOMBSTONE_TTL_MS) this.subs.delete(sub.id);
    }
  }

  private changed(sessionId: string): void {
    this.options.onChange?.(sessionId);
  }
}

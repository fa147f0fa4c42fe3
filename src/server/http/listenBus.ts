/**
 * The change-event bus behind `/mcp`'s 2026-07-28 `subscriptions/listen`
 * streams (SPEC §3, §13, §14), scoped by principal: a stream belongs to the
 * principal of the request that opened it, and hears only that principal's
 * hub events. On one machine every request has the same (empty) principal;
 * in a cluster each tenant's streams hear only its own sessions.
 *
 * The hub is listened to per principal, from the first open stream of that
 * principal to its last, inside the request that opened it (so a cluster's
 * hub port, which reads the principal of the request being served, binds the
 * listener to it).
 */
import type { ServerEvent, ServerEventBus, ServerNotifier } from '@modelcontextprotocol/server';

type Listener = (event: ServerEvent) => void;

/** Starts hearing the hub for one principal's streams; returns how to stop. */
export type PrincipalFeed = (notify: ServerNotifier) => () => void;

interface Scope {
  readonly listeners: Set<Listener>;
  readonly stop: () => void;
}

/** A `ServerEventBus` whose listeners are grouped by the principal that opened them. */
export class PrincipalListenBus implements ServerEventBus {
  private readonly scopes = new Map<string, Scope>();

  constructor(
    /** The principal of the request being served ('' on one machine). */
    private readonly principal: () => string,
    private readonly feed: PrincipalFeed,
  ) {}

  /** Principals with an open stream here. */
  get size(): number {
    return this.scopes.size;
  }

  subscribe(listener: Listener): () => void {
    const principal = this.principal();
    let scope = this.scopes.get(principal);
    if (!scope) {
      const listeners = new Set<Listener>();
      scope = { listeners, stop: this.feed(notifierFor(listeners)) };
      this.scopes.set(principal, scope);
    }
    scope.listeners.add(listener);
    const owned = scope;
    return () => {
      if (!owned.listeners.delete(listener) || owned.listeners.size > 0) return;
      if (this.scopes.get(principal) === owned) this.scopes.delete(principal);
      owned.stop();
    };
  }

  /** An event for every principal's streams (nothing of ours publishes one: each principal's feed does). */
  publish(event: ServerEvent): void {
    for (const scope of [...this.scopes.values()]) deliver(scope.listeners, event);
  }

  /** Stops hearing the hub (the streams themselves are closed by the handler). */
  close(): void {
    for (const scope of this.scopes.values()) scope.stop();
    this.scopes.clear();
  }
}

function deliver(listeners: ReadonlySet<Listener>, event: ServerEvent): void {
  for (const listener of [...listeners]) {
    try {
      listener(event);
    } catch {
      // One stream failing must not stop the others.
    }
  }
}

function notifierFor(listeners: ReadonlySet<Listener>): ServerNotifier {
  return {
    toolsChanged: () => deliver(listeners, { kind: 'tools_list_changed' }),
    promptsChanged: () => deliver(listeners, { kind: 'prompts_list_changed' }),
    resourcesChanged: () => deliver(listeners, { kind: 'resources_list_changed' }),
    resourceUpdated: (uri) => deliver(listeners, { kind: 'resource_updated', uri }),
  };
}

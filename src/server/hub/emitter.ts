/**
 * A tiny typed event emitter for {@link HubEvents}. A listener that throws is
 * isolated: the others still run.
 */
import type { HubEvents } from './hubPort.js';

/** Listeners per hub event. */
export class HubEmitter {
  private readonly listeners: { [E in keyof HubEvents]: Set<HubEvents[E]> } = {
    sessionsChanged: new Set(),
    sessionUpdated: new Set(),
    attachmentEnded: new Set(),
    attachmentDetached: new Set(),
  };

  /** Adds a listener; returns the function that removes it. */
  on<E extends keyof HubEvents>(event: E, listener: HubEvents[E]): () => void {
    const set = this.listeners[event] as Set<HubEvents[E]>;
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Calls every listener of `event`. */
  emit<E extends keyof HubEvents>(event: E, ...args: Parameters<HubEvents[E]>): void {
    for (const listener of this.listeners[event] as Set<(...a: Parameters<HubEvents[E]>) => void>) {
      try {
        listener(...args);
      } catch {
        // A front's listener failing must not stop the hub or the other fronts.
      }
    }
  }
}

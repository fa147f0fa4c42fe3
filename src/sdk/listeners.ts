/**
 * A set of listeners that can never change an outcome: one that throws is
 * ignored (the activity feed, target-unregistered notices).
 */

/** Listeners of one kind of notice. */
export interface ListenerSet<T> {
  notify(value: T): void;
  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: (value: T) => void): () => void;
}

/** Creates an empty listener set. */
export function listenerSet<T>(): ListenerSet<T> {
  const listeners = new Set<(value: T) => void>();
  return {
    notify(value) {
      for (const listener of [...listeners]) {
        try {
          listener(value);
        } catch {
          // A failing listener must not change an outcome.
        }
      }
    },
    subscribe(listener) {
      const own = (value: T): void => listener(value);
      listeners.add(own);
      return () => {
        listeners.delete(own);
      };
    },
  };
}

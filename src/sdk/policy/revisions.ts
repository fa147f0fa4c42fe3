/**
 * Revision counters (SPEC §5): one counter per (target, controller, domain).
 * Counters only ever grow, also across unmount and re-registration, so a value
 * read before a surface went away can never match again by accident.
 */
import { targetKey, type Revisions, type Target } from '../../protocol/index.js';
import type { ControllerDeclaration } from '../declare/declare.js';
import type { RevisionHandle } from '../types.js';

/** Every revision counter of one host. */
export class RevisionStore {
  private readonly counters = new Map<string, Map<string, number>>();

  /** The handle of one controller on one target (the page may bump it too). */
  handle(target: Target, controller: ControllerDeclaration): RevisionHandle {
    const domains = controller.revisionDomains;
    const counters = this.countersOf(target, controller.name);
    const known = (domain: string): void => {
      if (!domains.includes(domain)) {
        throw new Error(`Revision domain "${domain}" is not declared by controller ${controller.name}.`);
      }
    };
    return {
      get(domain) {
        known(domain);
        return counters.get(domain) ?? 0;
      },
      bump(domain) {
        known(domain);
        const next = (counters.get(domain) ?? 0) + 1;
        counters.set(domain, next);
        return next;
      },
      all() {
        return Object.fromEntries(domains.map((d) => [d, counters.get(d) ?? 0]));
      },
    };
  }

  /** Current values of some domains of one controller on one target. */
  values(target: Target, controller: string, domains: readonly string[]): Revisions {
    const counters = this.countersOf(target, controller);
    return Object.fromEntries(domains.map((d) => [d, counters.get(d) ?? 0]));
  }

  private countersOf(target: Target, controller: string): Map<string, number> {
    const key = `${targetKey(target)}\u0000${controller}`;
    let counters = this.counters.get(key);
    if (!counters) {
      counters = new Map();
      this.counters.set(key, counters);
    }
    return counters;
  }
}

/** A revision handle that remembers which domains were bumped through it. */
export interface TrackingRevisionHandle extends RevisionHandle {
  readonly bumped: ReadonlySet<string>;
}

/** Wraps a handle for one dispatch, so the dispatcher knows what the control bumped itself. */
export function trackBumps(inner: RevisionHandle): TrackingRevisionHandle {
  const bumped = new Set<string>();
  return {
    bumped,
    get: (domain) => inner.get(domain),
    bump(domain) {
      bumped.add(domain);
      return inner.bump(domain);
    },
    all: () => inner.all(),
  };
}

/**
 * After a mutation that succeeded or may have succeeded, bumps each declared
 * domain the control did not bump itself, so a stale `expectedRevisions` can
 * never pass again.
 */
export function bumpUntouched(handle: TrackingRevisionHandle, domains: readonly string[]): void {
  for (const domain of domains) if (!handle.bumped.has(domain)) handle.bump(domain);
}

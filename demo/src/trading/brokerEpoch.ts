/**
 * The paper broker lives in the page: a reload starts a new one with no orders.
 * An uncertain attempt dispatched to an earlier broker can therefore not be
 * proven "not happened" by this one (SPEC §5: nothing uncertain is presented as
 * certain), so reconciliation of such an attempt answers `unknown`.
 */
import type { MountOptions } from '../../../src/sdk/index.js';

type Reconcile = NonNullable<MountOptions['reconcile']>;

const BEFORE_THIS_BROKER =
  'the attempt was sent to the paper broker this page had before it reloaded, which this one cannot read';

/** Wraps a reconciler so it only judges attempts dispatched to this broker (started at `startedAtMs`). */
export function sinceBrokerStart(startedAtMs: number, reconcile: Reconcile): Reconcile {
  return async (request) => {
    const dispatched = Date.parse(request.dispatchedAt);
    if (!(dispatched >= startedAtMs)) return { outcome: 'unknown', reason: BEFORE_THIS_BROKER };
    return reconcile(request);
  };
}

/**
 * The opt-in page confirmation of trade-class calls (SPEC §5): a decline, no
 * answer within the window, a cancelled request or a failing handler all mean
 * "not confirmed". A late answer is ignored.
 */
import { makeError, type ErrorObject, type Target } from '../../protocol/index.js';
import { Trip, whenAborted, type Stop } from '../dispatch/deadline.js';
import type { ConfirmHandler } from '../types.js';

/** What the person is asked to confirm. */
export interface ConfirmationRequest {
  controlId: string;
  target: Target;
  args: unknown[];
  clientName: string;
}

/**
 * Asks the person; true only on an explicit `true` within `windowMs` and before
 * `stop` aborts. The handler's signal aborts when the question is moot, so a
 * dialog can close itself.
 */
export async function askConfirmation(
  confirm: ConfirmHandler,
  request: ConfirmationRequest,
  windowMs: number,
  stop: Stop,
): Promise<boolean> {
  const moot = new Trip();
  const timer = setTimeout(moot.fire, windowMs);
  stop.onAbort(moot.fire);
  try {
    const answer = Promise.resolve()
      .then(() => confirm({ ...request, signal: moot.signal }))
      .then(
        (value) => value === true,
        () => false,
      );
    return await Promise.race([answer, whenAborted(moot).then(() => false)]);
  } finally {
    clearTimeout(timer);
    moot.fire();
  }
}

/** `execution_declined`: nothing was dispatched or recorded. */
export function executionDeclined(): ErrorObject {
  return makeError(
    'execution_declined',
    'The person declined this call in the terminal, or did not answer in time. Nothing was dispatched; ask them before trying again.',
  );
}

/**
 * The errors subscriptions answer with (SPEC §4, §7); each message names the
 * next step.
 */
import { makeError, type ErrorObject } from '../../protocol/index.js';

/** An id this attachment does not own, or one long gone. */
export function subscriptionNotFound(): ErrorObject {
  return makeError(
    'subscription_not_found',
    'No subscription of this connection has that id: call tradescript_subscribe with action "list" to see yours.',
  );
}

/** Two bindings of one start share an id. */
export function duplicateBinding(index: number): ErrorObject {
  return makeError('invalid_input', 'Binding ids must be unique in a subscription: rename the repeated one.', {
    validation_errors: [
      {
        path: ['bindings', index, 'bindingId'],
        code: 'duplicate',
        message: 'This bindingId is already used by an earlier binding.',
      },
    ],
  });
}

/** The page did not answer a binding start. */
export function pageUnavailable(): ErrorObject {
  return makeError('internal_error', 'The page did not answer the subscription start; reload the terminal tab.');
}

/** The start was overtaken by its target's unregistration, a detach or the session's end. */
export function startOvertaken(targetGone: boolean): ErrorObject {
  return targetGone
    ? makeError(
        'target_not_found',
        'The target was unregistered while the subscription started: read context for current targets.',
      )
    : makeError('session_closed', 'The session or this connection ended while the subscription started.');
}

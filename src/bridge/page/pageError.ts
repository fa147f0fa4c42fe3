/**
 * An `internal_error` built on the page side of the bridge. Spelled out, not
 * `makeError`: the page entry must not pull in the protocol's schemas.
 */
import type { ErrorObject } from '../../protocol/index.js';

/** A defect of the bridge or the host, reported as `internal_error` (never retried). */
export function pageDefect(message: string): ErrorObject {
  return {
    code: 'internal_error',
    message,
    status_code: null,
    broker_code: null,
    broker_message: null,
    request_id: null,
    validation_errors: [],
    retry: 'never',
    auth_url: null,
    details: null,
  };
}

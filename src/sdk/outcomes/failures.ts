/**
 * Typed failures a control (or the broker behind it) reports. The dispatcher
 * maps each to an envelope error and decides, for mutations, whether the
 * outcome is definite or uncertain (SPEC §4, §5). Anything a control throws
 * that is not a {@link ControlFailure} is, after dispatch of a mutation,
 * `uncertain_execution`.
 */

/** The kinds of failure a control may declare. */
export type FailureKind =
  /** A definite broker "no" (400, business rule, 409 drift, 410 expired quote, partial alert deletion). */
  | 'broker-rejection'
  /** The broker session expired; `authUrl` is shown to the person, never followed. */
  | 'authentication-required'
  | 'authorization-expired'
  | 'authentication-failed'
  /** 429: on a mutation, a definite refusal before acceptance. */
  | 'rate-limited'
  /** 503 or another transient 5xx: on a mutation, uncertain. */
  | 'service-unavailable'
  | 'invalid-broker-response'
  | 'transport-error'
  /** The thing asked for does not exist. */
  | 'not-found'
  /** The control reports, definitely, that it failed and nothing changed. */
  | 'definite-failure';

/** What a failure carries. Broker text is redacted by the SDK before it travels. */
export interface FailureInfo {
  /** A short message for the agent that names the next step. */
  message?: string;
  statusCode?: number;
  brokerCode?: string;
  brokerMessage?: string;
  /** The broker's own request id, when safe to show. */
  requestId?: string;
  authUrl?: string;
  /** 409 price drift: decimal strings. */
  quote?: { originalPrice: string; newPrice: string; tolerance: string };
  /** The complete typed result of a partial failure (kept in `error.details.result`). */
  result?: unknown;
  /** For broker rejections of trade-class work that partially succeeded: reconcile before retrying. */
  partial?: boolean;
}

/** A typed failure thrown by a control. */
export class ControlFailure extends Error {
  readonly kind: FailureKind;
  readonly info: FailureInfo;
  constructor(kind: FailureKind, info: FailureInfo = {}) {
    super(info.message ?? kind);
    this.name = 'ControlFailure';
    this.kind = kind;
    this.info = info;
  }
}

/** Builds a {@link ControlFailure} to throw from a control. */
export function controlFailure(kind: FailureKind, info: FailureInfo = {}): ControlFailure {
  return new ControlFailure(kind, info);
}

/** True for a thrown value that is a typed control failure (also across realms). */
export function isControlFailure(value: unknown): value is ControlFailure {
  return (
    value instanceof ControlFailure || (value instanceof Error && value.name === 'ControlFailure' && 'kind' in value)
  );
}

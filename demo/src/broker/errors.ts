/**
 * How the paper broker says no: an HTTP-like status, a stable broker code and
 * a message written for the person. Controllers map these to the SDK's typed
 * failures; nothing branches on message text.
 */

/** Statuses the paper broker answers with. */
export type BrokerStatus = 400 | 401 | 404 | 409 | 410 | 429 | 503;

/** The 409 PRICE_DRIFT_EXCEEDED data. */
export interface DriftData {
  originalPrice: string;
  newPrice: string;
  tolerance: string;
}

/** A definite broker answer other than success. */
export class BrokerError extends Error {
  readonly status: BrokerStatus;
  readonly code: string;
  readonly authUrl: string | undefined;
  readonly drift: DriftData | undefined;

  constructor(
    status: BrokerStatus,
    code: string,
    message: string,
    extra: { authUrl?: string; drift?: DriftData } = {},
  ) {
    super(message);
    this.name = 'BrokerError';
    this.status = status;
    this.code = code;
    this.authUrl = extra.authUrl;
    this.drift = extra.drift;
  }
}

/**
 * The broker applied the request but its answer never arrived. Deliberately a
 * plain Error to the SDK: after dispatch of a mutation it is uncertain.
 */
export class LostResponseError extends Error {
  constructor() {
    super('The broker response was lost in transit.');
    this.name = 'LostResponseError';
  }
}

/** True for a {@link BrokerError}. */
export function isBrokerError(value: unknown): value is BrokerError {
  return value instanceof BrokerError;
}

/** A 400 business rejection. */
export function rejected(code: string, message: string): BrokerError {
  return new BrokerError(400, code, message);
}

/** A 404 for something the broker does not know. */
export function notFound(code: string, message: string): BrokerError {
  return new BrokerError(404, code, message);
}

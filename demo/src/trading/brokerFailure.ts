/**
 * From a paper-broker answer to the SDK's typed control failures (SPEC §4,
 * §5). A lost response stays a plain Error for a mutation, so the SDK
 * records it as uncertain; on a read it is a retryable transport error.
 */
import { controlFailure, type FailureInfo } from '../../../src/sdk/index.js';
import { isBrokerError, LostResponseError, type BrokerError } from '../broker/errors.js';

/** The next step an agent should take after a definite rejection with this broker code. */
const NEXT_STEP: Readonly<Record<string, string>> = {
  QUOTE_EXPIRED:
    'The quote expired (quotes last 5 minutes) or is unknown: call fx.getQuote for a new quote and let the person review it before confirming. Do not retry this confirmation.',
  PRICE_DRIFT_EXCEEDED:
    'The live rate moved beyond tolerance (details.quote has originalPrice, newPrice, tolerance): call fx.getQuote again and let the person review the new rate. Do not retry this confirmation.',
  DUPLICATE_CLIENT_ORDER_ID:
    'This client order id was already used in this account: reconcile with orders.list first (the order may exist). A genuinely new order or modification needs a new id.',
  PREVIEW_MISMATCH:
    'The placement differs from its preview: pass placementArguments exactly as the preview returned them, or preview again for a change.',
  PREVIEW_EXPIRED: 'The preview expired: preview again, review the new estimate, then place its placementArguments.',
  PREVIEW_NOT_FOUND: 'No such preview: call the preview control first and pass its placementArguments unchanged.',
  ORDER_NOT_OPEN:
    'The order is no longer working (filled, cancelled or being cancelled): read orders.list for its status.',
  INSUFFICIENT_FUNDS: 'Not enough cash for this buy: reduce the quantity or ask the person.',
  INSUFFICIENT_POSITION: 'The account holds too little to sell (this broker does not sell short): read positions.list.',
};

/** Broker status, code and text, as a failure carries them. */
function brokerInfo(error: BrokerError): FailureInfo {
  return { statusCode: error.status, brokerCode: error.code, brokerMessage: error.message };
}

/** What a control throws for a broker failure (`mutation` says whether it was dispatched as one). */
export function failureOf(error: unknown, mutation: boolean): unknown {
  if (error instanceof LostResponseError) {
    return mutation ? error : controlFailure('transport-error', { message: 'The broker answer was lost; read again.' });
  }
  if (!isBrokerError(error)) return error;
  const info = brokerInfo(error);
  switch (error.status) {
    case 401:
      return controlFailure('authentication-required', {
        ...info,
        authUrl: error.authUrl,
        message:
          'The broker session expired. Ask the person to re-authenticate in the terminal (auth_url is for them; never open it), then retry.',
      });
    case 429:
      return controlFailure('rate-limited', info);
    case 503:
      return controlFailure('service-unavailable', info);
    case 404:
      return controlFailure(mutation ? 'broker-rejection' : 'not-found', info);
    default:
      return controlFailure('broker-rejection', { ...info, message: NEXT_STEP[error.code], quote: error.drift });
  }
}

/** Runs one broker request, translating its failures for the SDK. */
export async function brokerCall<T>(mutation: boolean, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw failureOf(error, mutation);
  }
}

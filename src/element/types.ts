/**
 * The element's public shapes: the details of the DOM events it dispatches.
 */
import type { BridgeStatus, PairLinkResult } from '../bridge/page/bridgeTypes.js';
import type { Grant } from '../protocol/policy.js';

/** Who set the grant. */
export type GrantSource =
  /** The person, in the element's grant control. */
  | 'person'
  /** A pairing link that proposed a grant (`tradescript-mcp pair --grant …`). */
  | 'pairing-link'
  /** Kept from an earlier choice in this tab (a reload). */
  | 'restored';

/** Detail of `tradescript-grant`. */
export interface GrantChangeDetail {
  grant: Grant;
  source: GrantSource;
}

/** `tradescript-status`: every bridge status change; detail is the status. */
export const STATUS_EVENT = 'tradescript-status';
/** `tradescript-grant`: the grant changed; detail is {@link GrantChangeDetail}. */
export const GRANT_EVENT = 'tradescript-grant';

/**
 * `tradescript-pair-link`: a pairing link was opened in this already paired tab;
 * the element shows it (the grant it proposes, to accept or decline). A page
 * that hides the element should show it now. Detail: the {@link PairLinkResult}.
 */
export const PAIR_LINK_EVENT = 'tradescript-pair-link';

/** The event map of `<tradescript-bridge>`. */
export interface TradescriptBridgeEventMap {
  [STATUS_EVENT]: CustomEvent<BridgeStatus>;
  [GRANT_EVENT]: CustomEvent<GrantChangeDetail>;
  [PAIR_LINK_EVENT]: CustomEvent<PairLinkResult>;
}

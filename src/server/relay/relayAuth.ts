/**
 * Who a relay connection is (SPEC §9, §14): what its hello presents, the
 * verdict on it, and the authenticator that gives it (the pairing module; a
 * cluster node's, answered from Redis).
 */
import type { BrowserFrame, Credential, Grant } from '../../protocol/index.js';

/** Who a connection turned out to be after hello. */
export interface HostIdentity {
  hostId: string;
  hostKind: 'page' | 'extension';
  /** The socket's origin (a page's own, or the extension's). */
  origin: string;
  /** Cluster mode (SPEC §14): the tenant whose bearer opened the socket. */
  principal?: string;
}

type HelloAuth = Extract<BrowserFrame, { t: 'hello' }>['auth'];

/** The verdict on a hello: a host (with a new credential when pairing), or a reason for the person. */
export type HelloVerdict =
  { ok: true; hostId: string; credential?: Credential; grant?: Grant } | { ok: false; reason: string };

/** Who presents a hello: the socket's origin and kind, and in cluster mode its principal (SPEC §14). */
export interface HelloPeer {
  origin: string;
  hostKind: HostIdentity['hostKind'];
  principal?: string;
}

/**
 * Exchanges a pairing code or verifies a credential (the pairing module; a
 * cluster node's answers from Redis, so it may resolve later).
 */
export interface RelayAuthenticator {
  authenticate(auth: HelloAuth, peer: HelloPeer): HelloVerdict | Promise<HelloVerdict>;
  /**
   * Spends a pairing code offered by a tab already paired, for the grant its
   * link proposes (the tab asks the person); null when expired or used. In
   * cluster mode the code must be one its principal asked for.
   */
  proposal?(code: string, peer: HelloPeer): Grant | null | Promise<Grant | null>;
  /** What the page shows when an offered code does not work. */
  readonly codeRefused?: string;
}

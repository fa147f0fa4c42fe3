/**
 * Pairing (SPEC §9): a `hello` with a single-use code becomes a new credential
 * (returned once, with the grant the link proposed); a `hello` with a
 * credential is verified. Implements the relay's authenticator.
 */
import type { Grant } from '../../protocol/index.js';
import type { HelloVerdict, RelayAuthenticator } from '../relay/relayAuth.js';
import { CredentialFile } from './credentialFile.js';
import type { Logger } from '../log.js';
import { logBurns, PairingCodes, type IssuedCode } from './pairingCodes.js';

/** What the page shows when a code does not work. */
export const CODE_REFUSED = 'pairing code expired or used; run `npx tradescript-mcp pair` for a fresh link';
/** What the page shows when its credential does not work. */
export const CREDENTIAL_REFUSED =
  'credential not recognised or revoked; run `npx tradescript-mcp pair` for a fresh link';

/** Options of {@link Pairing}. */
export interface PairingOptions {
  /** `$TRADESCRIPT_MCP_HOME`. */
  home: string;
  now?: () => number;
  /** Code lifetime; defaults to SPEC §9's two minutes. */
  codeTtlMs?: number;
  /** Where a burn of the outstanding codes is logged (counts only, never a code). */
  logger?: Logger;
  /** Codes already issued (a starting hub issues its first before it loads the rest; `now` and `codeTtlMs` are theirs). */
  codes?: PairingCodes;
}

/** Codes and credentials of one server. */
export class Pairing implements RelayAuthenticator {
  readonly codes: PairingCodes;
  readonly store: CredentialFile;
  readonly codeRefused = CODE_REFUSED;

  constructor(options: PairingOptions) {
    this.codes = options.codes ?? new PairingCodes(options.now, options.codeTtlMs, logBurns(options.logger));
    this.store = new CredentialFile(options.home, options.now);
  }

  /** Issues a code whose link proposes `grant`. */
  issueCode(grant: Grant): IssuedCode {
    return this.codes.issue(grant);
  }

  /** Revokes a host's credential. */
  revoke(hostId: string): boolean {
    return this.store.revoke(hostId);
  }

  /** Spends a code offered by a paired tab: the grant its link proposes, or null. Creates no credential. */
  proposal(code: string): Grant | null {
    return this.codes.redeem(code);
  }

  authenticate(...[auth, peer]: Parameters<RelayAuthenticator['authenticate']>): HelloVerdict {
    if (auth.kind === 'credential') {
      return this.store.verify(auth.credential, peer.origin)
        ? { ok: true, hostId: auth.credential.hostId }
        : { ok: false, reason: CREDENTIAL_REFUSED };
    }
    const grant = this.codes.redeem(auth.code);
    if (grant === null) return { ok: false, reason: CODE_REFUSED };
    const credential = this.store.create(peer.origin, peer.hostKind);
    if (!credential)
      return { ok: false, reason: 'too many paired hosts; revoke one with `npx tradescript-mcp sessions revoke`' };
    return { ok: true, hostId: credential.hostId, credential, grant };
  }
}

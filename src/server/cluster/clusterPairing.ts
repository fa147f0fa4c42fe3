/**
 * Pairing in cluster mode (SPEC §9, §14): codes and credentials live in Redis,
 * so a browser pairs through one node and reconnects through any. Both are
 * kept as hashes, as on one machine. A code is scoped to the principal that
 * asked for it: it is stored under a hash of principal and code, so another
 * principal presenting it finds nothing. A credential is bound to its
 * principal and origin. After {@link GUESS_LIMIT} wrong codes in a minute a
 * principal's outstanding codes are burned.
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { RELAY_TIMING, type Credential, type Grant } from '../../protocol/index.js';
import {
  ClusterCodeRecordSchema,
  ClusterCredentialRecordSchema,
  parseClusterJson,
  type ClusterCredentialRecord,
} from '../../protocol/wire/clusterBus.js';
import { randomId } from '../hub/ids.js';
import type { Logger } from '../log.js';
import { CODE_REFUSED, CREDENTIAL_REFUSED } from '../pairing/pairing.js';
import { CODE_ALPHABET, normalizeCode, type IssuedCode } from '../pairing/pairingCodes.js';
import type { HelloPeer, HelloVerdict, RelayAuthenticator } from '../relay/relayAuth.js';
import { keys } from './clusterKeys.js';
import type { CommandClient } from './redisClients.js';

/** Wrong codes per principal per minute before its outstanding codes are burned (SPEC §9). */
export const GUESS_LIMIT = 20;
/** Most hosts one principal may pair. */
export const MAX_HOSTS_PER_PRINCIPAL = 1000;
const CODE_LENGTH = 8;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function codeDigest(principal: string, code: string): string {
  return sha256(`${principal}\n${normalizeCode(code.slice(0, 64))}`).toString('hex');
}

const DUMMY_HASH = sha256('no such host');

/** Codes and credentials of a cluster. */
export class ClusterPairing implements RelayAuthenticator {
  constructor(
    private readonly redis: () => CommandClient,
    private readonly logger: Logger,
    private readonly codeTtlMs: number = RELAY_TIMING.pairCodeTtlMs,
  ) {}

  /** What the page shows when an offered code does not work. */
  readonly codeRefused = CODE_REFUSED;

  /** Issues a code for `principal` whose link proposes `grant`. */
  async issueCode(principal: string, grant: Grant): Promise<IssuedCode> {
    let raw = '';
    for (let i = 0; i < CODE_LENGTH; i++) raw += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    const code = `${raw.slice(0, 4)}-${raw.slice(4)}`;
    const digest = codeDigest(principal, code);
    const codes = keys.principalCodes(principal);
    await this.redis()
      .multi()
      .set(keys.code(digest), JSON.stringify({ grant }), 'PX', this.codeTtlMs)
      .sadd(codes, digest)
      .pexpire(codes, this.codeTtlMs)
      .exec();
    return { code, grant, expiresAt: Date.now() + this.codeTtlMs };
  }

  async authenticate(...[auth, peer]: Parameters<RelayAuthenticator['authenticate']>): Promise<HelloVerdict> {
    const principal = peer.principal;
    if (principal === undefined) return { ok: false, reason: CREDENTIAL_REFUSED };
    if (auth.kind === 'credential') {
      return (await this.verify(auth.credential, peer.origin, principal))
        ? { ok: true, hostId: auth.credential.hostId }
        : { ok: false, reason: CREDENTIAL_REFUSED };
    }
    const grant = await this.redeem(principal, auth.code);
    if (grant === null) return { ok: false, reason: CODE_REFUSED };
    const credential = await this.create(principal, peer);
    if (!credential) return { ok: false, reason: 'too many paired hosts; revoke one first' };
    return { ok: true, hostId: credential.hostId, credential, grant };
  }

  /**
   * Spends a code offered by a tab already paired: the grant its link proposes,
   * or null. Only a code its own principal asked for; creates no credential.
   */
  async proposal(code: string, peer: HelloPeer): Promise<Grant | null> {
    return peer.principal === undefined ? null : this.redeem(peer.principal, code);
  }

  /** The credential record of a host of `principal`, or null. */
  async host(principal: string, hostId: string): Promise<ClusterCredentialRecord | null> {
    const record = parseClusterJson(ClusterCredentialRecordSchema, await this.redis().get(keys.credential(hostId)));
    return record?.principal === principal ? record : null;
  }

  /** Revokes a host of `principal`; false when it has none by that id. */
  async revoke(principal: string, hostId: string): Promise<boolean> {
    if (!(await this.host(principal, hostId))) return false;
    await this.redis().multi().del(keys.credential(hostId)).srem(keys.principalHosts(principal), hostId).exec();
    return true;
  }

  private async verify(credential: Credential, origin: string, principal: string): Promise<boolean> {
    const record = parseClusterJson(
      ClusterCredentialRecordSchema,
      await this.redis().get(keys.credential(credential.hostId)),
    );
    const expected = record ? Buffer.from(record.secretHash, 'base64url') : DUMMY_HASH;
    const presented = sha256(credential.secret);
    const same = expected.length === presented.length && timingSafeEqual(expected, presented);
    return same && record !== null && record.origin === origin && record.principal === principal;
  }

  private async redeem(principal: string, code: string): Promise<Grant | null> {
    const digest = codeDigest(principal, code);
    const redis = this.redis();
    const found = parseClusterJson(ClusterCodeRecordSchema, await redis.getdel(keys.code(digest)));
    if (found) {
      await redis.srem(keys.principalCodes(principal), digest);
      return found.grant;
    }
    await this.wrongGuess(principal);
    return null;
  }

  private async wrongGuess(principal: string): Promise<void> {
    const redis = this.redis();
    const [[, count]] = (await redis
      .multi()
      .incr(keys.guesses(principal))
      .pexpire(keys.guesses(principal), 60_000, 'NX')
      .exec()) as [[unknown, number], unknown];
    this.logger.warn('wrong pairing code', { principal, wrongInLastMinute: count });
    if (count < GUESS_LIMIT) return;
    const digests = await redis.smembers(keys.principalCodes(principal));
    const burn = redis.multi().del(keys.principalCodes(principal));
    for (const digest of digests) burn.del(keys.code(digest));
    await burn.exec();
    if (digests.length > 0)
      this.logger.warn('pairing codes burned after repeated wrong codes', { principal, burned: digests.length });
  }

  private async create(principal: string, peer: HelloPeer): Promise<Credential | null> {
    const redis = this.redis();
    if ((await redis.scard(keys.principalHosts(principal))) >= MAX_HOSTS_PER_PRINCIPAL) return null;
    const credential = { hostId: randomId('h'), secret: randomBytes(32).toString('base64url') };
    const record: ClusterCredentialRecord = {
      hostId: credential.hostId,
      principal,
      secretHash: sha256(credential.secret).toString('base64url'),
      origin: peer.origin,
      hostKind: peer.hostKind,
      pairedAt: new Date().toISOString(),
    };
    await redis
      .multi()
      .set(keys.credential(credential.hostId), JSON.stringify(record))
      .sadd(keys.principalHosts(principal), credential.hostId)
      .exec();
    return credential;
  }
}

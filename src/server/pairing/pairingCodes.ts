/**
 * Single-use pairing codes (SPEC §9): short, from an alphabet without look-alike
 * characters, crypto-random, expiring after two minutes or on first use. Each
 * code is bound to the grant its link proposes. Only hashes are kept, and a
 * presented code is compared against every live one in constant time.
 * Guessing is bounded: the 20th wrong code within a minute burns every
 * outstanding code (the person runs `pair` again).
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { Grant } from '../../protocol/index.js';
import { RELAY_TIMING } from '../../protocol/limits.js';
import type { Logger } from '../log.js';

/** No 0/O, 1/I/L, U/V look-alikes. */
export const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTWXYZ';
const CODE_LENGTH = 8;
const MAX_LIVE_CODES = 32;
/** Wrong codes within {@link GUESS_WINDOW_MS} that burn every outstanding code. */
export const MAX_WRONG_CODES = 20;
/** The window wrong codes are counted in. */
export const GUESS_WINDOW_MS = 60_000;

/** Told when guessing burned the outstanding codes: how many wrong codes, how many codes burned. */
export type BurnListener = (wrongCodes: number, burned: number) => void;

/** A {@link BurnListener} that warns on `logger` (counts only, never a code). */
export function logBurns(logger: Logger | undefined): BurnListener {
  return (wrongCodes, burned) =>
    logger?.warn('pairing codes burned after wrong codes; run `tradescript-mcp pair` for a fresh link', {
      wrongCodes,
      windowMs: GUESS_WINDOW_MS,
      burned,
    });
}

/** A freshly issued code. */
export interface IssuedCode {
  /** Shown as `XXXX-XXXX`. */
  code: string;
  grant: Grant;
  expiresAt: number;
}

interface LiveCode {
  hash: Buffer;
  grant: Grant;
  expiresAt: number;
}

/** Upper-cases and drops separators, so `abcd-efgh` and `ABCDEFGH` are one code. */
export function normalizeCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

function hashCode(code: string): Buffer {
  return createHash('sha256').update(normalizeCode(code)).digest();
}

/** The live pairing codes of one server. */
export class PairingCodes {
  private live: LiveCode[] = [];
  /** When each recent wrong code came (epoch ms), oldest first. */
  private wrong: number[] = [];

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs: number = RELAY_TIMING.pairCodeTtlMs,
    private readonly onBurn: BurnListener = () => undefined,
  ) {}

  /** Issues a new code proposing `grant`. */
  issue(grant: Grant): IssuedCode {
    let raw = '';
    for (let i = 0; i < CODE_LENGTH; i++) raw += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    const code = `${raw.slice(0, 4)}-${raw.slice(4)}`;
    const expiresAt = this.now() + this.ttlMs;
    this.prune();
    this.live.push({ hash: hashCode(code), grant, expiresAt });
    if (this.live.length > MAX_LIVE_CODES) this.live.shift();
    return { code, grant, expiresAt };
  }

  /** Uses a code: its grant when it is live (and now used up), else null. */
  redeem(code: string): Grant | null {
    const presented = hashCode(code.slice(0, 64));
    let hit: LiveCode | null = null;
    for (const entry of this.live) {
      // Every entry is compared, so timing says nothing about which (if any) matched.
      if (timingSafeEqual(presented, entry.hash) && hit === null) hit = entry;
    }
    this.prune();
    if (!hit || hit.expiresAt <= this.now()) return this.wrongCode();
    this.live = this.live.filter((e) => e !== hit);
    return hit.grant;
  }

  /** Counts a wrong code; the {@link MAX_WRONG_CODES}th within a minute burns every outstanding code. */
  private wrongCode(): null {
    const now = this.now();
    this.wrong = this.wrong.filter((at) => at > now - GUESS_WINDOW_MS);
    this.wrong.push(now);
    if (this.wrong.length < MAX_WRONG_CODES) return null;
    const burned = this.live.length;
    this.live = [];
    this.wrong = [];
    this.onBurn(MAX_WRONG_CODES, burned);
    return null;
  }

  /** Codes still usable. */
  get size(): number {
    this.prune();
    return this.live.length;
  }

  private prune(): void {
    const now = this.now();
    this.live = this.live.filter((e) => e.expiresAt > now);
  }
}

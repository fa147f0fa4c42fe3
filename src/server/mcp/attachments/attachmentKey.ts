/**
 * Where the key of stateless attachment handles comes from
 * (docs/protocolRevisions.md). Every server that must accept the same handles
 * shares one key: on one machine every process of a home reads
 * `<home>/attachment.key` (created once, mode 0600), so a handle survives a
 * server restart and a takeover of the hub; a cluster supplies its own
 * {@link HandleKeySource} (a secret every node reads).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HandleKey } from './attachmentHandles.js';

/** Loads the handle key; called once per process, before the first stateless request. */
export type HandleKeySource = () => Promise<HandleKey>;

/** The key file's name inside the home. */
export const ATTACHMENT_KEY_FILE = 'attachment.key';

const KEY_BYTES = 32;
const KEY_TEXT = /^[0-9a-f]{64}$/;

function readKey(path: string): HandleKey | null {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return KEY_TEXT.test(text) ? { secret: Buffer.from(text, 'hex') } : null;
  } catch {
    return null;
  }
}

/**
 * The key of a home: read from `<home>/attachment.key`, created there (mode
 * 0600, exclusively, so two processes starting together agree) when missing.
 */
export function homeKeySource(home: string): HandleKeySource {
  return async () => {
    const path = join(home, ATTACHMENT_KEY_FILE);
    const existing = readKey(path);
    if (existing) return existing;
    mkdirSync(home, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(path, `${randomBytes(KEY_BYTES).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const created = readKey(path);
    if (!created) throw new Error(`${path} is not a TradeScript attachment key; remove it and restart.`);
    return created;
  };
}

/** A key held in memory (tests; or a cluster that fetched its secret itself). */
export function fixedKeySource(secret: Buffer = randomBytes(KEY_BYTES)): HandleKeySource {
  const key: HandleKey = { secret };
  return () => Promise.resolve(key);
}

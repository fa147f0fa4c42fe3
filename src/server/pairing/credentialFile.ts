/**
 * Long-lived host credentials (SPEC §9): one per paired origin, a secret of 32
 * random bytes returned once at pairing. Only a SHA-256 hash of each secret is
 * stored, in `$TRADESCRIPT_MCP_HOME/credentials.json` (mode 0600), so pairings
 * survive restarts. Verification compares hashes in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Credential } from '../../protocol/index.js';
import { randomId } from '../hub/ids.js';
import { readJsonFile, writeSecureFile } from './secureFile.js';

/** Most hosts one home keeps. */
export const MAX_HOSTS = 1000;

const HostRecordSchema = z
  .object({
    hostId: z.string().min(1).max(128),
    secretHash: z.string().min(1).max(128),
    origin: z.string().max(256),
    hostKind: z.enum(['page', 'extension']),
    pairedAt: z.string(),
  })
  .strict();
type HostRecord = z.infer<typeof HostRecordSchema>;

const FileSchema = z.object({ version: z.literal(1), hosts: z.array(HostRecordSchema).max(MAX_HOSTS) }).strict();

/** A paired host as `status` shows it (never its hash). */
export type PairedHost = Omit<HostRecord, 'secretHash'>;

function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

const DUMMY_HASH = hashSecret('no such host');

/** The credentials file of one home directory. */
export class CredentialFile {
  private readonly hosts = new Map<string, HostRecord>();
  /** Where an unreadable credentials file was moved aside, or null. */
  readonly setAside: string | null = null;

  constructor(
    readonly home: string,
    private readonly now: () => number = Date.now,
  ) {
    if (!existsSync(this.path)) return;
    const parsed = FileSchema.safeParse(readJsonFile(this.path));
    if (parsed.success) {
      for (const h of parsed.data.hosts) this.hosts.set(h.hostId, h);
    } else {
      // Kept for the person to inspect rather than overwritten by the next pairing.
      this.setAside = `${this.path}.unreadable-${this.now()}`;
      renameSync(this.path, this.setAside);
    }
  }

  /** Where the hashes live. */
  get path(): string {
    return join(this.home, 'credentials.json');
  }

  /** Creates and persists a credential for a newly paired host; null when the store is full. */
  create(origin: string, hostKind: HostRecord['hostKind']): Credential | null {
    if (this.hosts.size >= MAX_HOSTS) return null;
    const credential = { hostId: randomId('h'), secret: randomBytes(32).toString('base64url') };
    this.hosts.set(credential.hostId, {
      hostId: credential.hostId,
      secretHash: hashSecret(credential.secret).toString('base64url'),
      origin,
      hostKind,
      pairedAt: new Date(this.now()).toISOString(),
    });
    this.save();
    return credential;
  }

  /** True when the credential is ours, unrevoked, and presented from the origin that paired it. */
  verify(credential: Credential, origin: string): boolean {
    const record = this.hosts.get(credential.hostId);
    const expected = record ? Buffer.from(record.secretHash, 'base64url') : DUMMY_HASH;
    const presented = hashSecret(credential.secret);
    const same = expected.length === presented.length && timingSafeEqual(expected, presented);
    return same && record !== undefined && record.origin === origin;
  }

  /** Revokes a host's credential; false when there was none. */
  revoke(hostId: string): boolean {
    if (!this.hosts.delete(hostId)) return false;
    this.save();
    return true;
  }

  /** Paired hosts, oldest first. */
  list(): PairedHost[] {
    return [...this.hosts.values()].map(({ secretHash: _h, ...rest }) => rest);
  }

  private save(): void {
    writeSecureFile(this.path, `${JSON.stringify({ version: 1, hosts: [...this.hosts.values()] }, null, 2)}\n`);
  }
}

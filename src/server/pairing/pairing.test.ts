import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialFile } from './credentialFile.js';
import { CODE_REFUSED, CREDENTIAL_REFUSED, Pairing } from './pairing.js';
import { CODE_ALPHABET, PairingCodes } from './pairingCodes.js';
import { secureDirectory, writeSecureFile } from './secureFile.js';

const home = () => join(mkdtempSync(join(tmpdir(), 'tsmcp-pair-')), 'home');
const page = { origin: 'http://127.0.0.1:7392', hostKind: 'page' as const };

describe('pairing codes (SPEC §9)', () => {
  it('issues short codes from the unambiguous alphabet', () => {
    const { code } = new PairingCodes().issue('write');
    expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    for (const ch of code.replace('-', '')) expect(CODE_ALPHABET).toContain(ch);
    expect(CODE_ALPHABET).not.toMatch(/[01ILOU]/);
  });

  it('is single use and keeps the grant it proposes', () => {
    const codes = new PairingCodes();
    const { code } = codes.issue('trade');
    expect(codes.redeem(code.toLowerCase())).toBe('trade');
    expect(codes.redeem(code)).toBeNull();
  });

  it('expires after its lifetime (injected clock)', () => {
    let now = 1_000;
    const codes = new PairingCodes(() => now, 120_000);
    const { code, expiresAt } = codes.issue('write');
    expect(expiresAt).toBe(121_000);
    now = 121_000;
    expect(codes.redeem(code)).toBeNull();
  });

  it('refuses a wrong code without using up the live one', () => {
    const codes = new PairingCodes();
    const { code } = codes.issue('read');
    expect(codes.redeem('ZZZZ-ZZZZ')).toBeNull();
    expect(codes.redeem(code)).toBe('read');
  });
});

describe('credentials (SPEC §9)', () => {
  it('exchanges a code once for a credential with the proposed grant, then verifies it', () => {
    const pairing = new Pairing({ home: home() });
    const { code } = pairing.issueCode('trade');
    const verdict = pairing.authenticate({ kind: 'pair', code }, page);
    if (!verdict.ok || !verdict.credential) throw new Error('pairing failed');
    expect(verdict.grant).toBe('trade');
    expect(Buffer.from(verdict.credential.secret, 'base64url').length).toBeGreaterThanOrEqual(32);
    expect(pairing.authenticate({ kind: 'credential', credential: verdict.credential }, page)).toEqual({
      ok: true,
      hostId: verdict.hostId,
    });
    expect(pairing.authenticate({ kind: 'pair', code }, page)).toEqual({ ok: false, reason: CODE_REFUSED });
  });

  it('refuses a wrong secret, an unknown host, and a credential presented from another origin', () => {
    const pairing = new Pairing({ home: home() });
    const verdict = pairing.authenticate({ kind: 'pair', code: pairing.issueCode('write').code }, page);
    if (!verdict.ok || !verdict.credential) throw new Error('pairing failed');
    const { hostId, secret } = verdict.credential;
    const refused = { ok: false, reason: CREDENTIAL_REFUSED };
    expect(pairing.authenticate({ kind: 'credential', credential: { hostId, secret: `${secret}x` } }, page)).toEqual(
      refused,
    );
    expect(pairing.authenticate({ kind: 'credential', credential: { hostId: 'h_other', secret } }, page)).toEqual(
      refused,
    );
    expect(
      pairing.authenticate(
        { kind: 'credential', credential: { hostId, secret } },
        { ...page, origin: 'http://evil.example' },
      ),
    ).toEqual(refused);
  });

  it('stores only hashes, in a 0600 file inside a 0700 directory, surviving a restart', () => {
    const dir = home();
    const pairing = new Pairing({ home: dir });
    const verdict = pairing.authenticate({ kind: 'pair', code: pairing.issueCode('write').code }, page);
    if (!verdict.ok || !verdict.credential) throw new Error('pairing failed');
    const file = join(dir, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, 'utf8')).not.toContain(verdict.credential.secret);
    const restarted = new CredentialFile(dir);
    expect(restarted.verify(verdict.credential, page.origin)).toBe(true);
  });

  it('SPEC §9 an existing home folder with a looser mode is tightened to 0700; a tight one is left alone', () => {
    const dir = home();
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    expect(secureDirectory(dir)).toBe(0o755);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(secureDirectory(dir)).toBeNull();
    chmodSync(dir, 0o777);
    writeSecureFile(join(dir, 'x.json'), '{}');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('revokes by host id, persistently', () => {
    const dir = home();
    const pairing = new Pairing({ home: dir });
    const verdict = pairing.authenticate({ kind: 'pair', code: pairing.issueCode('write').code }, page);
    if (!verdict.ok || !verdict.credential) throw new Error('pairing failed');
    expect(pairing.revoke(verdict.hostId)).toBe(true);
    expect(pairing.revoke(verdict.hostId)).toBe(false);
    expect(new CredentialFile(dir).verify(verdict.credential, page.origin)).toBe(false);
  });

  it('sets an unreadable credentials file aside instead of overwriting it', () => {
    const dir = home();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'credentials.json'), 'garbage');
    const store = new CredentialFile(dir);
    expect(store.setAside).toMatch(/credentials\.json\.unreadable-/);
    expect(readFileSync(store.setAside ?? '', 'utf8')).toBe('garbage');
  });
});

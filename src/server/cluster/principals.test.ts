import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitUntil } from '../../testing/waitUntil.js';
import { parseTokenFile, tokenDigest, tokenFileResolver } from './principals.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef00';

function file(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tsmcp-principals-')), 'tokens.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('SPEC §14 the token file maps bearer tokens to principals', () => {
  it('tokens listed in clear or as their SHA-256 name their principal; anything else names nobody', () => {
    const resolver = tokenFileResolver(
      file({
        version: 1,
        tokens: [
          { principal: 'alice', token: ALICE },
          { principal: 'bob', sha256: tokenDigest(BOB) },
        ],
      }),
    );
    expect(resolver.principalOf(ALICE)).toBe('alice');
    expect(resolver.principalOf(BOB)).toBe('bob');
    expect(resolver.principalOf(`${ALICE}x`)).toBeNull();
    expect(resolver.principalOf(tokenDigest(BOB))).toBeNull();
    expect(resolver.principalOf('x'.repeat(10_000))).toBeNull();
    resolver.close();
  });

  it('a malformed file is refused with what is wrong: not JSON, short tokens, bad principals, unknown fields', () => {
    expect(() => parseTokenFile('not json')).toThrow(/not JSON/);
    expect(() => parseTokenFile(JSON.stringify({ version: 1, tokens: [{ principal: 'a', token: 'short' }] }))).toThrow(
      /does not fit/,
    );
    expect(() => parseTokenFile(JSON.stringify({ version: 1, tokens: [{ principal: 'a b', token: ALICE }] }))).toThrow(
      /does not fit/,
    );
    expect(() =>
      parseTokenFile(JSON.stringify({ version: 1, tokens: [{ principal: 'a', token: ALICE, admin: true }] })),
    ).toThrow(/does not fit/);
    expect(() => parseTokenFile(JSON.stringify({ version: 1, tokens: [] }))).toThrow(/does not fit/);
  });

  it('a changed file takes effect without a restart; a broken change is ignored and reported', async () => {
    const path = file({ version: 1, tokens: [{ principal: 'alice', token: ALICE }] });
    const failures: string[] = [];
    let reloads = 0;
    const resolver = tokenFileResolver(path, { onReloaded: () => reloads++, onReloadFailed: (m) => failures.push(m) });
    writeFileSync(path, JSON.stringify({ version: 1, tokens: [{ principal: 'bob', token: BOB }] }));
    await waitUntil(
      () => reloads === 1,
      10_000,
      () => 'the reload',
    );
    expect(resolver.principalOf(ALICE)).toBeNull();
    expect(resolver.principalOf(BOB)).toBe('bob');
    writeFileSync(path, '{"version":1,');
    await waitUntil(
      () => failures.length === 1,
      10_000,
      () => 'the failed reload',
    );
    expect(resolver.principalOf(BOB)).toBe('bob');
    resolver.close();
  }, 30_000);
});

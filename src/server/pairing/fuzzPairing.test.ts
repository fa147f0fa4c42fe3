/**
 * Hostile pairing (SPEC §9): guessed, expired and reused codes and forged
 * credentials, presented in `hello` frames to the real hub with real pairing
 * (a temporary home, an injected clock). Every one is refused with 4401 and a
 * reason that names the next step; the 20th wrong code within a minute burns
 * every outstanding code and the count is logged; nothing presented reaches
 * the log.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLOSE_CODES, RELAY_TIMING, type Credential } from '../../protocol/index.js';
import { Hub } from '../hub/hub.js';
import { createLogger } from '../log.js';
import { createMemorySocketPair } from '../relay/memorySocket.js';
import { CODE_REFUSED, CREDENTIAL_REFUSED, Pairing } from './pairing.js';
import { CODE_ALPHABET } from './pairingCodes.js';

const PAGE_ORIGIN = 'http://127.0.0.1:7392';

function setup() {
  let now = 1_000_000;
  const lines: string[] = [];
  const logger = createLogger('debug', (l) => lines.push(l));
  const home = join(mkdtempSync(join(tmpdir(), 'tsmcp-hostile-')), 'home');
  const pairing = new Pairing({ home, now: () => now, logger });
  const hub = new Hub({ auth: pairing, logger, serverVersion: 't' });
  return { pairing, hub, lines, advance: (ms: number) => (now += ms) };
}

type Auth = { kind: 'pair'; code: string } | { kind: 'credential'; credential: Credential };

/** One socket saying hello; resolves with the welcome's credential or the close. */
async function hello(hub: Hub, auth: Auth, origin = PAGE_ORIGIN) {
  const { server, client } = createMemorySocketPair();
  hub.connect(server, { origin });
  client.send({ t: 'hello', v: 1, agent: { kind: 'page', version: 'test' }, auth });
  const outcome = await Promise.race([
    client.next('welcome').then((welcome) => ({ welcome })),
    client.whenClosed().then((closed) => ({ closed })),
  ]);
  client.drop(1000);
  return outcome;
}

const guess = fc
  .array(fc.constantFrom(...CODE_ALPHABET), { minLength: 8, maxLength: 8 })
  .map((chars) => `${chars.slice(0, 4).join('')}-${chars.slice(4).join('')}`);

describe('SPEC §9 pairing codes under attack', () => {
  it('SPEC §9 hundreds of guessed codes are each refused with 4401; they burn the live code, never reach the log', async () => {
    const { pairing, hub, lines } = setup();
    const { code } = pairing.issueCode('write');
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        fc
          .oneof(
            guess,
            fc.string({ maxLength: 48 }).map((s) => `QZX${s}XZQ`),
          )
          .filter((g) => g.replace('-', '') !== code.replace('-', '')),
        async (wrong) => {
          const outcome = await hello(hub, { kind: 'pair', code: wrong });
          expect(outcome).toEqual({ closed: { code: CLOSE_CODES.unauthorized, reason: CODE_REFUSED } });
          refused += 1;
          expect(lines.join('\n')).not.toContain(wrong);
        },
      ),
      { numRuns: 300 },
    );
    expect(refused).toBe(300);
    // Guessing burned the code the person was about to use: they run `pair` again.
    expect(await hello(hub, { kind: 'pair', code })).toEqual({
      closed: { code: CLOSE_CODES.unauthorized, reason: CODE_REFUSED },
    });
    const fresh = pairing.issueCode('write').code;
    const paired = await hello(hub, { kind: 'pair', code: fresh });
    expect('welcome' in paired && paired.welcome.credential?.hostId).toBeTruthy();
    const log = lines.join('\n');
    expect(log).not.toContain(code);
    expect(log).not.toContain(fresh);
    expect(log).toMatch(/pairing codes burned after wrong codes.*wrongCodes=20/);
    hub.close();
  });

  it('SPEC §9 the 20th wrong code within a minute burns every outstanding code; 19, or 20 spread over more than a minute, burn nothing', async () => {
    const { pairing, hub, lines, advance } = setup();
    const wrong = (i: number) => hello(hub, { kind: 'pair', code: `QZX${i}` });
    const kept = pairing.issueCode('write').code;
    for (let i = 0; i < 19; i += 1) await wrong(i);
    advance(60_001);
    for (let i = 0; i < 19; i += 1) await wrong(i);
    expect(pairing.codes.size).toBe(1);
    const first = await hello(hub, { kind: 'pair', code: kept });
    expect('welcome' in first).toBe(true);
    const outstanding = [
      pairing.issueCode('write').code,
      pairing.issueCode('trade').code,
      pairing.issueCode('read').code,
    ];
    await wrong(99);
    expect(pairing.codes.size).toBe(0);
    for (const code of outstanding) {
      expect(await hello(hub, { kind: 'pair', code })).toEqual({
        closed: { code: CLOSE_CODES.unauthorized, reason: CODE_REFUSED },
      });
    }
    expect(lines.filter((l) => l.includes('pairing codes burned'))).toHaveLength(1);
    expect(lines.join('\n')).toMatch(/wrongCodes=20 windowMs=60000 burned=3/);
    hub.close();
  });

  it('SPEC §9 an expired code (injected clock, 2 minutes) and a used one are refused with the command for a fresh link', async () => {
    const { pairing, hub, advance } = setup();
    const expiring = pairing.issueCode('write').code;
    advance(RELAY_TIMING.pairCodeTtlMs);
    expect(await hello(hub, { kind: 'pair', code: expiring })).toEqual({
      closed: { code: CLOSE_CODES.unauthorized, reason: CODE_REFUSED },
    });
    const once = pairing.issueCode('trade').code;
    const first = await hello(hub, { kind: 'pair', code: once });
    expect('welcome' in first && first.welcome.grant).toBe('trade');
    expect(await hello(hub, { kind: 'pair', code: once.toLowerCase() })).toEqual({
      closed: { code: CLOSE_CODES.unauthorized, reason: CODE_REFUSED },
    });
    expect(CODE_REFUSED).toContain('tradescript-mcp pair');
    hub.close();
  });

  it('SPEC §9 forged credentials (guessed secrets, a real one from another origin, a revoked one) are refused with 4401', async () => {
    const { pairing, hub, lines } = setup();
    const paired = await hello(hub, { kind: 'pair', code: pairing.issueCode('write').code });
    if (!('welcome' in paired) || !paired.welcome.credential) throw new Error('pairing failed');
    const real = paired.welcome.credential;
    const secret = fc.string({ minLength: 16, maxLength: 64 });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constant(real.hostId), fc.string({ minLength: 1, maxLength: 32 })),
        secret,
        async (hostId, guessed) => {
          fc.pre(guessed !== real.secret);
          const outcome = await hello(hub, { kind: 'credential', credential: { hostId, secret: guessed } });
          expect(outcome).toEqual({ closed: { code: CLOSE_CODES.unauthorized, reason: CREDENTIAL_REFUSED } });
        },
      ),
      { numRuns: 200 },
    );
    expect(await hello(hub, { kind: 'credential', credential: real }, 'http://127.0.0.1:9999')).toEqual({
      closed: { code: CLOSE_CODES.unauthorized, reason: CREDENTIAL_REFUSED },
    });
    expect('welcome' in (await hello(hub, { kind: 'credential', credential: real }))).toBe(true);
    pairing.revoke(real.hostId);
    expect(await hello(hub, { kind: 'credential', credential: real })).toEqual({
      closed: { code: CLOSE_CODES.unauthorized, reason: CREDENTIAL_REFUSED },
    });
    expect(lines.join('\n')).not.toContain(real.secret);
    hub.close();
  });
});

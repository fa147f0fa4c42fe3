/**
 * Hostile pairing (SPEC §9): guessed, expired and reused codes and forged
 * credentials, presented in `hello` frames to the real hub with real pairing
 * (a temporary home, an injected clock). Every one is refused with 4401 and a
 * reason that names the next step; a guess never uses up or locks the live
 * code; nothing presented reaches the log.
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
  const pairing = new Pairing({ home: join(mkdtempSync(join(tmpdir(), 'tsmcp-hostile-')), 'home'), now: () => now });
  const hub = new Hub({ auth: pairing, logger: createLogger('debug', (l) => lines.push(l)), serverVersion: 't' });
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
  it('SPEC §9 hundreds of guessed codes are each refused with 4401; the live code still pairs afterwards', async () => {
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
    // No rate limiting exists (see docs/security.md): guesses are only refused, and the live code is unharmed.
    const paired = await hello(hub, { kind: 'pair', code });
    expect('welcome' in paired && paired.welcome.credential?.hostId).toBeTruthy();
    expect(lines.join('\n')).not.toContain(code);
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

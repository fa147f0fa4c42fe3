import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Hub } from '../hub/hub.js';
import { createLogger } from '../log.js';
import { CODE_REFUSED, Pairing } from '../pairing/pairing.js';
import { createMemorySocketPair } from './memorySocket.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function start(tradingEnabled?: boolean) {
  const home = mkdtempSync(join(tmpdir(), 'tsmcp-offer-'));
  homes.push(home);
  const pairing = new Pairing({ home });
  const lines: string[] = [];
  const hub = new Hub({
    auth: pairing,
    logger: createLogger('debug', (line) => lines.push(line)),
    serverVersion: '0.0.0-test',
    ...(tradingEnabled === undefined ? {} : { tradingEnabled }),
  });
  const tab = () => {
    const { server, client } = createMemorySocketPair();
    hub.connect(server, { origin: 'http://127.0.0.1:7392' });
    return client;
  };
  return { hub, pairing, lines, tab };
}

const agent = { kind: 'page', version: 'test' } as const;

describe('SPEC §9 a pairing link opened in a tab already paired', () => {
  it('spends the code for the grant its link proposes, pairs nothing new, and never logs the code', async () => {
    const { hub, pairing, lines, tab } = start();
    const first = pairing.issueCode('write').code;
    const client = tab();
    client.send({ t: 'hello', v: 1, agent, auth: { kind: 'pair', code: first } });
    const welcome = await client.next('welcome');
    expect(welcome.grant).toBe('write');

    const link = pairing.issueCode('trade').code;
    client.send({ t: 'pair.offer', ref: 'o1', code: link });
    expect(await client.next('pair.proposal')).toEqual({ t: 'pair.proposal', ref: 'o1', grant: 'trade' });
    client.send({ t: 'pair.offer', ref: 'o2', code: link });
    expect(await client.next('pair.proposal')).toEqual({
      t: 'pair.proposal',
      ref: 'o2',
      grant: null,
      message: CODE_REFUSED,
    });

    expect(pairing.store.list()).toHaveLength(1);
    expect(client.closed).toBeNull();
    expect(lines.join('\n')).not.toContain(link.replace('-', ''));
    expect(lines.join('\n')).not.toContain(link);
    expect(lines.join('\n')).toMatch(/pairing link opened in a paired tab .*proposed="trade"/);
    hub.close();
  });

  it('an offer before hello is not read: the socket closes 4400', async () => {
    const { hub, pairing, tab } = start();
    const client = tab();
    client.send({ t: 'pair.offer', ref: 'o1', code: pairing.issueCode('trade').code });
    expect((await client.whenClosed()).code).toBe(4400);
    expect(pairing.codes.size).toBe(1);
    hub.close();
  });
});

describe('SPEC §11 the welcome says whether trading is enabled', () => {
  it('tradingEnabled follows --enable-trading, false by default', async () => {
    for (const [enabled, expected] of [
      [true, true],
      [undefined, false],
    ] as const) {
      const { hub, pairing, tab } = start(enabled);
      const client = tab();
      client.send({ t: 'hello', v: 1, agent, auth: { kind: 'pair', code: pairing.issueCode('write').code } });
      expect((await client.next('welcome')).tradingEnabled).toBe(expected);
      hub.close();
    }
  });
});

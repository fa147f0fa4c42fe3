import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocketServer } from 'ws';
import { CLOSE_CODES, type CatalogDocument } from '../../protocol/index.js';
import type { RelayClient } from './relayClient.js';
import { type RelayClientOptions, type RelayClientStatus } from './relayClient.js';
import { createMemoryCredentialStore, type BrowserCredentialStore } from './browserCredentials.js';
import { CREDENTIAL_REFUSED_MESSAGE, originNotAllowedMessage, PAIR_CODE_REFUSED_MESSAGE } from './statusMessages.js';
import type { HandlerResult } from './clientSessions.js';
import { knownCredential, listenScriptedRelay } from '../testing/listeningRelay.js';
import type { ScriptedRelay } from '../testing/scriptedRelay.js';
import { testRelayClient } from '../testing/testRelayClient.js';
import type { PairLinkResult } from '../page/bridgeTypes.js';

const catalog: CatalogDocument = { controls: [], channels: [] };
const handler = (): Promise<HandlerResult> =>
  Promise.resolve({ environment: 'paper', outcome: { ok: true, data: null } });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let wss: WebSocketServer;
let relay: ScriptedRelay;
let url: string;
const connections: RelayClient[] = [];

beforeEach(async () => {
  ({ wss, relay, url } = await listenScriptedRelay());
});

afterEach(async () => {
  for (const connection of connections.splice(0)) connection.close();
  for (const client of wss.clients) client.terminate();
  await new Promise((resolve) => wss.close(resolve));
  expect(relay.invalidFrames).toBe(0);
});

function connect(credentials: BrowserCredentialStore, extra: Partial<RelayClientOptions> = {}) {
  const statuses: RelayClientStatus[] = [];
  const connection = testRelayClient(url, credentials, { onStatus: (status) => statuses.push(status), ...extra });
  connections.push(connection);
  return { connection, statuses };
}

describe('SPEC §9 pairing', () => {
  it('pairing by code stores the credential and never sends the code again', async () => {
    relay.pairCodes.add('CODE-123');
    const store = createMemoryCredentialStore();
    const { connection, statuses } = connect(store, { pairCode: 'CODE-123' });
    connection.start();
    await vi.waitFor(() => expect(connection.status().state).toBe('paired'));
    expect(statuses.map((s) => s.state)).toContain('pairing');
    await vi.waitFor(async () => expect(await store.load()).toEqual(relay.credential));

    relay.latest?.socket.terminate();
    await vi.waitFor(() => expect(relay.peers[1]?.welcomed).toBe(true));
    relay.peers[1]?.socket.terminate();
    await vi.waitFor(() => expect(relay.peers[2]?.welcomed).toBe(true));

    const auths = relay.framesOf('hello').map((hello) => hello.auth.kind);
    expect(auths).toEqual(['pair', 'credential', 'credential']);
  });

  it('a pairing link proposes its grant once welcome carries it', async () => {
    relay.pairCodes.add('CODE-GRANT');
    relay.grant = 'trade';
    const proposed: string[] = [];
    const { connection } = connect(createMemoryCredentialStore(), {
      pairCode: 'CODE-GRANT',
      onGrantProposed: (grant) => proposed.push(grant),
    });
    connection.start();
    await vi.waitFor(() => expect(proposed).toEqual(['trade']));
  });

  it('with neither credential nor code it is unpaired, names the pair command and opens no socket', async () => {
    const { connection } = connect(createMemoryCredentialStore());
    connection.start();
    await vi.waitFor(() => expect(connection.status().state).toBe('unpaired'));
    expect(connection.status().message).toContain('npx tradescript-mcp pair');
    expect(relay.peers).toHaveLength(0);
  });

  it('an expired or used pairing code shows the fresh-link message and is not retried', async () => {
    const { connection } = connect(createMemoryCredentialStore(), { pairCode: 'USED-CODE' });
    connection.start();
    await vi.waitFor(() => expect(connection.status().state).toBe('unpaired'));
    expect(connection.status().message).toBe(PAIR_CODE_REFUSED_MESSAGE);
    await sleep(100); // random() is 0: a retry would already have happened
    expect(relay.peers).toHaveLength(1);
  });

  it('a later pair() call with a fresh code pairs an unpaired connection', async () => {
    const store = createMemoryCredentialStore();
    const { connection } = connect(store);
    connection.start();
    await vi.waitFor(() => expect(connection.status().state).toBe('unpaired'));
    relay.pairCodes.add('FRESH');
    connection.pair('FRESH');
    await vi.waitFor(() => expect(connection.status().state).toBe('paired'));
    expect(await store.load()).toEqual(relay.credential);
  });
});

describe('SPEC §9 refused credentials', () => {
  it('4401 clears the credential and goes unpaired without a reconnect storm', async () => {
    relay.credential = knownCredential();
    const store = createMemoryCredentialStore({ hostId: 'host-1', secret: 'a-revoked-secret-00001' });
    const { connection } = connect(store);
    connection.start();
    await vi.waitFor(() => expect(connection.status().state).toBe('unpaired'));
    expect(connection.status().message).toBe(CREDENTIAL_REFUSED_MESSAGE);
    expect(await store.load()).toBeNull();
    await sleep(100); // random() is 0: a retry would already have happened
    expect(relay.peers).toHaveLength(1);
  });

  it('a credential revoked mid-session (4403) is forgotten and nothing reconnects', async () => {
    relay.credential = knownCredential();
    const store = createMemoryCredentialStore(relay.credential);
    const { connection } = connect(store);
    connection.start();
    await vi.waitFor(() => expect(connection.status().state).toBe('paired'));
    relay.latest?.socket.close(4403);
    await vi.waitFor(() => expect(connection.status().state).toBe('unpaired'));
    expect(await store.load()).toBeNull();
    await sleep(100);
    expect(relay.peers).toHaveLength(1);
  });

  it('a credential issued on this socket and revoked on it is forgotten too', async () => {
    relay.pairCodes.add('CODE-THEN-REVOKE');
    const store = createMemoryCredentialStore();
    const { connection } = connect(store, { pairCode: 'CODE-THEN-REVOKE' });
    connection.start();
    await vi.waitFor(() => expect(connection.status().state).toBe('paired'));
    relay.latest?.socket.close(4403);
    await vi.waitFor(() => expect(connection.status().state).toBe('unpaired'));
    expect(connection.status().message).toBe(CREDENTIAL_REFUSED_MESSAGE);
    expect(await store.load()).toBeNull();
  });

  it('a refused credential falls back to a waiting pairing code', async () => {
    relay.pairCodes.add('CODE-FALLBACK');
    const store = createMemoryCredentialStore({ hostId: 'host-1', secret: 'a-revoked-secret-00001' });
    const { connection } = connect(store, { pairCode: 'CODE-FALLBACK' });
    connection.start();
    await vi.waitFor(() => expect(connection.status().state).toBe('paired'));
    expect(relay.framesOf('hello').map((h) => h.auth.kind)).toEqual(['credential', 'pair']);
    expect(await store.load()).toEqual(relay.credential);
  });
});

describe('SPEC §2 sessions across reconnects', () => {
  it('a reconnect after a server-side drop presents the credential and the same sessionId', async () => {
    relay.credential = knownCredential();
    const { connection } = connect(createMemoryCredentialStore(relay.credential));
    const session = connection.openSession({ info: { title: 'Tab' }, catalog, handler });
    connection.start();
    await vi.waitFor(() => expect(session.status().open).toBe(true));
    const first = session.status().sessionId;
    expect(first).not.toBeNull();

    relay.latest?.socket.terminate();
    await vi.waitFor(() => expect(relay.framesOf('session.open')).toHaveLength(2));
    const [, reopen] = relay.framesOf('session.open');
    expect(reopen?.sessionId).toBe(first);
    expect(relay.framesOf('hello')[1]?.auth.kind).toBe('credential');
    await vi.waitFor(() => expect(session.status()).toMatchObject({ open: true, sessionId: first }));
  });

  it('a refused kept session id is reopened once as a new session (a duplicated tab)', async () => {
    relay.credential = knownCredential();
    relay.refusedSessionIds.add('kept-by-another-tab');
    const { connection } = connect(createMemoryCredentialStore(relay.credential));
    const session = connection.openSession({
      sessionId: 'kept-by-another-tab',
      info: { title: 'Tab' },
      catalog,
      handler,
    });
    connection.start();
    await vi.waitFor(() => expect(session.status().open).toBe(true));
    expect(relay.framesOf('session.open').map((f) => f.sessionId)).toEqual(['kept-by-another-tab', undefined]);
    expect(session.status().sessionId).not.toBe('kept-by-another-tab');
  });

  it('one socket carries several sessions (the extension case)', async () => {
    relay.credential = knownCredential();
    const { connection } = connect(createMemoryCredentialStore(relay.credential));
    const a = connection.openSession({ info: { title: 'A' }, catalog, handler, origin: 'https://a.example' });
    connection.start();
    await vi.waitFor(() => expect(a.status().open).toBe(true));
    const b = connection.openSession({ info: { title: 'B' }, catalog, handler, origin: 'https://b.example' });
    await vi.waitFor(() => expect(b.status().open).toBe(true));
    expect(a.status().sessionId).not.toBe(b.status().sessionId);
    expect(relay.peers).toHaveLength(1);
    b.close();
    await vi.waitFor(() =>
      expect(relay.framesOf('session.close')).toEqual([{ t: 'session.close', sessionId: b.status().sessionId }]),
    );
  });
});

describe('SPEC §9 a pairing link in a tab already paired', () => {
  /** A connection already holding the relay's credential, with a link's code waiting. */
  async function pairedWithLink(code: string, extra: Partial<RelayClientOptions> = {}) {
    relay.pairCodes.add('FIRST');
    const first = createMemoryCredentialStore();
    const pairing = connect(first, { pairCode: 'FIRST' });
    pairing.connection.start();
    await vi.waitFor(async () => expect(await first.load()).not.toBeNull());
    pairing.connection.close();
    const store = createMemoryCredentialStore(relay.credential);
    const links: PairLinkResult[] = [];
    const proposed: string[] = [];
    const opened = connect(store, {
      pairCode: code,
      onPairLink: (result) => links.push(result),
      onGrantProposed: (grant) => proposed.push(grant),
      ...extra,
    });
    return { ...opened, store, links, proposed };
  }

  it('offers the code once welcomed and reports the proposed grant for the person, applying nothing and keeping the credential', async () => {
    relay.grant = 'trade';
    relay.pairCodes.add('LINK-TRADE');
    const { connection, store, links, proposed } = await pairedWithLink('LINK-TRADE');
    const credential = relay.credential;
    connection.start();
    await vi.waitFor(() => expect(links).toEqual([{ grant: 'trade', message: null }]));
    expect(proposed).toEqual([]);
    expect(relay.framesOf('pair.offer').map((f) => f.code)).toEqual(['LINK-TRADE']);
    expect(
      relay
        .framesOf('hello')
        .slice(1)
        .map((h) => h.auth.kind),
    ).toEqual(['credential']);
    expect(await store.load()).toEqual(credential);
    expect(connection.status().state).toBe('paired');
  });

  it('pair() on a paired connection offers the code at once; an expired one says how to get a fresh link and the tab stays paired', async () => {
    const { connection, links } = await pairedWithLink('UNUSED');
    relay.pairCodes.delete('UNUSED');
    connection.start();
    await vi.waitFor(() => expect(links).toHaveLength(1));
    expect(links[0]).toEqual({ grant: null, message: PAIR_CODE_REFUSED_MESSAGE });
    relay.pairCodes.add('LINK-READ');
    relay.grant = 'read';
    connection.pair('LINK-READ');
    await vi.waitFor(() => expect(links[1]).toEqual({ grant: 'read', message: null }));
    expect(connection.status().state).toBe('paired');
    expect(relay.peers.at(-1)?.closedWith).toBeNull();
  });
});

describe('SPEC §9 §11 what the relay tells the page', () => {
  it('a relay that closes with originNotAllowed is reported with the --allowed-origin flag, and retried with backoff', async () => {
    wss.on('connection', (socket) => socket.close(CLOSE_CODES.originNotAllowed, 'origin'));
    const { connection } = connect(createMemoryCredentialStore({ hostId: 'h', secret: 'a-secret-of-16-chars' }), {
      backoff: { baseMs: 20, capMs: 40, stableMs: 1_000 },
    });
    connection.start();
    await vi.waitFor(() => expect(connection.status().message).toContain('--allowed-origin'));
    // The message stays while it retries (the person may restart the server with the flag meanwhile).
    expect(connection.status().message).toBe(originNotAllowedMessage('this origin'));
    expect(connection.status().state).not.toBe('paired');
    await vi.waitFor(() => expect(relay.peers.length).toBeGreaterThanOrEqual(2));
  });

  it('the welcome says whether the server was started with --enable-trading', async () => {
    relay.pairCodes.add('CODE-T');
    relay.tradingEnabled = true;
    const { connection } = connect(createMemoryCredentialStore(), { pairCode: 'CODE-T' });
    connection.start();
    await vi.waitFor(() => expect(connection.status()).toMatchObject({ state: 'paired', tradingEnabled: true }));
  });
});

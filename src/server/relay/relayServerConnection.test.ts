import { describe, expect, it } from 'vitest';
import { CLOSE_CODES, DEFAULT_LIMITS, relayLimitsOf } from '../../protocol/index.js';
import { Hub, type HubTiming } from '../hub/hub.js';
import { openScriptedTab, TEST_CATALOG, TEST_SECRET, testAuthenticator } from '../testing/scriptedTab.js';
import { createLogger } from '../log.js';
import { createMemorySocketPair } from './memorySocket.js';

function connect(timing: Partial<HubTiming> = {}, maxFrameBytes?: number) {
  const lines: string[] = [];
  const hub = new Hub({
    auth: testAuthenticator(),
    logger: createLogger('debug', (l) => lines.push(l)),
    serverVersion: '0.0.0-test',
    timing,
    maxFrameBytes,
  });
  const { server, client } = createMemorySocketPair();
  hub.connect(server, { origin: 'http://127.0.0.1:7392' });
  return { hub, client, lines };
}

const hello = (secret = TEST_SECRET) => ({
  t: 'hello',
  v: 1,
  agent: { kind: 'page', version: 'test' },
  auth: { kind: 'credential', credential: { hostId: 'h_x', secret } },
});
const open = { t: 'session.open', ref: 'r1', info: { title: 'T' }, catalog: TEST_CATALOG };

describe('relay frames (SPEC §9)', () => {
  it('closes 4400 on text that is not JSON and logs no content', async () => {
    const { client, lines } = connect();
    client.sendText('{"t":"hello", secret-content');
    expect((await client.whenClosed()).code).toBe(CLOSE_CODES.malformed);
    expect(lines.join('\n')).not.toContain('secret-content');
    expect(lines.join('\n')).toContain('not-json');
  });

  it('closes 4400 on a frame failing the schema', async () => {
    const { client } = connect();
    client.send({ ...hello(), extra: 'field' });
    expect((await client.whenClosed()).code).toBe(CLOSE_CODES.malformed);
  });

  it('closes 4400 when the first frame is not hello', async () => {
    const { client } = connect();
    client.send(open);
    expect((await client.whenClosed()).code).toBe(CLOSE_CODES.malformed);
  });

  it('SPEC §6 closes 4400 on an answer nested deeper than any answer may be; the request resolves as lost', async () => {
    const lines: string[] = [];
    const hub = new Hub({
      auth: testAuthenticator(),
      logger: createLogger('debug', (l) => lines.push(l)),
      serverVersion: 't',
    });
    const tab = await openScriptedTab(hub);
    const { attachmentId } = await hub.attach({ clientName: 'c', transport: 'stdio' });
    const limits = relayLimitsOf(DEFAULT_LIMITS);
    const answer = hub.request(
      attachmentId,
      tab.sessionId,
      { kind: 'context', target: { scope: 'session' } },
      {
        adapter: { maxAccess: 'write', allowControls: null },
        limits,
        deadlineMs: 5_000,
      },
    );
    const request = await tab.nextRequest();
    const deep = `${'['.repeat(100_000)}"deep-secret"${']'.repeat(100_000)}`;
    tab.client.sendText(
      `{"t":"response","id":"${request.id}","environment":"paper","outcome":{"ok":true,"data":${deep}}}`,
    );
    expect((await tab.client.whenClosed()).code).toBe(CLOSE_CODES.malformed);
    expect(await answer).toMatchObject({ ok: false, error: { code: 'transport_error' } });
    expect(lines.join('\n')).not.toContain('deep-secret');
    hub.close();
  });

  it('closes 4413 on a frame over the size limit, before parsing it', async () => {
    const { client } = connect({}, 64);
    client.sendText(JSON.stringify({ t: 'ping', n: 1, pad: 'x'.repeat(100) }));
    expect((await client.whenClosed()).code).toBe(CLOSE_CODES.tooLarge);
  });

  it('closes 4401 with a reason the page can show when the credential is refused', async () => {
    const { client } = connect();
    client.send(hello('wrong-secret-0123456789'));
    const closed = await client.whenClosed();
    expect(closed.code).toBe(CLOSE_CODES.unauthorized);
    expect(closed.reason).toMatch(/credential/);
  });

  it('closes 4403 when an extension hello comes from a page origin', async () => {
    const { client } = connect();
    client.send({ ...hello(), agent: { kind: 'extension', version: '1' } });
    expect((await client.whenClosed()).code).toBe(CLOSE_CODES.forbidden);
  });
});

describe('relay attach timeout (SPEC §9: attach within 5 s)', () => {
  it('closes 4408 when no hello arrives in time', async () => {
    const { client } = connect({ attachTimeoutMs: 20 });
    expect((await client.whenClosed()).code).toBe(CLOSE_CODES.attachTimeout);
  });

  it('closes 4408 when hello arrives but no session opens in time', async () => {
    const { client } = connect({ attachTimeoutMs: 30 });
    client.send(hello());
    await client.next('welcome');
    expect((await client.whenClosed()).code).toBe(CLOSE_CODES.attachTimeout);
  });

  it('keeps the socket once hello and the first session completed', async () => {
    const { client } = connect({ attachTimeoutMs: 30, heartbeatTimeoutMs: 10_000 });
    client.send(hello());
    client.send(open);
    await client.next('session.opened');
    await new Promise((r) => setTimeout(r, 60));
    expect(client.closed).toBeNull();
  });
});

describe('relay heartbeat (SPEC §9)', () => {
  it('answers ping with pong and sends its own pings at the heartbeat interval', async () => {
    const { client } = connect({ heartbeatMs: 10 });
    client.send(hello());
    const welcome = await client.next('welcome');
    expect(welcome.heartbeatMs).toBe(10);
    client.send({ t: 'ping', n: 7 });
    expect(await client.next('pong')).toEqual({ t: 'pong', n: 7 });
    expect((await client.next('ping')).n).toBe(1);
  });

  it('closes 4420 after the heartbeat timeout of silence', async () => {
    const { client } = connect({ heartbeatTimeoutMs: 30, attachTimeoutMs: 10_000 });
    client.send(hello());
    client.send(open);
    await client.next('session.opened');
    expect((await client.whenClosed()).code).toBe(CLOSE_CODES.heartbeatTimeout);
  });
});

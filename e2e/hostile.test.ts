/**
 * Hostile input, end to end (SPEC §9 trust, §4 and §11 what is never echoed or
 * logged), against the real CLI (`demo`) with the demo in Chromium. Extends
 * e2e/trust.test.ts (which covers a plainly foreign Origin and Host): DNS
 * rebinding Host names, `null` and look-alike origins, IPv6 forms; guessed and
 * reused pairing codes; malformed, oversized and deeply nested relay frames
 * from a paired raw socket; a tab answering another tab's request; a revoked
 * host; and a page on another origin trying to reach the bridge. Every refusal
 * is counted, and the server's logs never carry a code, a credential, an
 * argument value or broker text.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLOSE_CODES,
  SESSIONS_URI,
  type CallReceipt,
  type Credential,
  type SessionsDocument,
} from '../src/protocol/index.js';
import { TEST_CATALOG } from '../src/server/testing/scriptedTab.js';
import {
  callTool,
  connectHttpClient,
  launchBrowser,
  newPage,
  pairPage,
  serverBin,
  startServer,
  type ServerHandle,
  rawInitializeStatus,
  upgradeOutcome,
  upgradeStatus,
} from './harness/index.js';
import { RawTab as RawTabSocket } from './harness/rawTab.js';

interface DemoWindow {
  __tradescriptDemo?: { bridgeStatus(): { state: string; sessionId: string | null; message: string | null } };
}

let server: ServerHandle;
let browser: Browser;
let client: Client;
let mcp: { url: string; port: string };
let demoOrigin: string;
let relayUrl: string;
/** Secrets and values that must never reach a log line. */
const secrets: string[] = [];
/** A marked value of this file (`QZX…XZQ`); a bare `QZX` can occur in a random id or secret in the log. */
const MARKED = /QZX[A-Z0-9]*XZQ/;
const refusals = { mcpHttp: 0, relayUpgrade: 0, pairCodes: 0, frames: 0, credentials: 0, foreignPage: 0 };

beforeAll(async () => {
  server = await startServer(['demo']);
  mcp = { url: server.ready.mcpUrl!, port: new URL(server.ready.mcpUrl!).port };
  demoOrigin = new URL(server.ready.demoUrl!).origin;
  relayUrl = server.ready.relayUrl;
  secrets.push(new URL(server.ready.pairUrl!).hash.replace('#pair=', ''));
  browser = await launchBrowser();
  client = await connectHttpClient(mcp.url);
});

afterAll(async () => {
  console.log(`hostile refusals: ${JSON.stringify(refusals)}`);
  await client?.close().catch(() => undefined);
  await server?.close();
});

/** A raw `initialize` POST to /mcp with any Host and Origin (or none); resolves with the status. */
const rawPost = (headers: Record<string, string | undefined>, setHost = true): Promise<number> =>
  rawInitializeStatus(mcp.url, headers, setHost);

/** The HTTP status of a relay upgrade with these headers (101 when it opened). */
const relayUpgrade = (headers: Record<string, string>, path = '/relay'): Promise<number> =>
  upgradeStatus(new URL(path, relayUrl).toString(), headers);

/** A raw relay socket with the demo's Origin (or `origin`), as a hostile or test tab. */
const RawTab = {
  open: (origin = demoOrigin): Promise<RawTabSocket> => RawTabSocket.open(relayUrl, origin),
  withSession: (credential: Credential, title = 'raw tab') =>
    RawTabSocket.withSession(relayUrl, demoOrigin, credential, title),
};

/** A fresh pairing code from the running server (`tradescript-mcp pair --json`). */
function freshCode(grant = 'write'): { code: string; pairUrl: string } {
  const out = execFileSync(process.execPath, [serverBin, 'pair', '--grant', grant, '--json'], {
    env: { ...process.env, TRADESCRIPT_MCP_HOME: server.home },
    encoding: 'utf8',
  });
  const answer = JSON.parse(out) as { code: string; pairUrl: string };
  secrets.push(answer.code, answer.code.replace('-', ''));
  return answer;
}

let rawCredential: Credential;

describe('SPEC §9 /mcp refuses what a browser under DNS rebinding or a foreign page would send', () => {
  it('SPEC §9 rebinding Host names, numeric and IPv6 look-alikes, a wrong port or no Host are 403; loopback names with the port pass', async () => {
    const p = mcp.port;
    const refused = [
      `localhost.attacker.example:${p}`,
      `127.0.0.1.nip.io:${p}`,
      `localhost.:${p}`,
      `127.0.0.1.:${p}`,
      `0x7f000001:${p}`,
      `2130706433:${p}`,
      `127.1:${p}`,
      `127.0.0.2:${p}`,
      `[::ffff:127.0.0.1]:${p}`,
      `[0:0:0:0:0:0:0:1]:${p}`,
      `127.0.0.1:1`,
      '127.0.0.1',
      `user@127.0.0.1:${p}`,
      `127.0.0.1:${p},evil.example`,
    ];
    for (const host of refused) {
      expect(await rawPost({ host }), host).toBe(403);
      refusals.mcpHttp += 1;
    }
    expect([400, 403]).toContain(await rawPost({}, false));
    refusals.mcpHttp += 1;
    for (const host of [`localhost:${p}`, `LOCALHOST:${p}`, `[::1]:${p}`])
      expect(await rawPost({ host }), host).toBe(200);
  });

  it('SPEC §9 a null Origin, look-alike origins and another loopback name than the Host are 403; the same origin in any case passes', async () => {
    const p = mcp.port;
    const host = `127.0.0.1:${p}`;
    for (const origin of [
      'null',
      `http://127.0.0.1:${p}.evil.example`,
      `http://localhost:${p}`,
      `https://127.0.0.1:${p}`,
      `http://127.0.0.1:${p}/`,
      `http://127.0.0.1:${p}@evil.example`,
      `chrome-extension://abcdefghijklmnopabcdefghijklmnop`,
    ]) {
      expect(await rawPost({ host, origin }), origin).toBe(403);
      refusals.mcpHttp += 1;
    }
    expect(await rawPost({ host, origin: `HTTP://127.0.0.1:${p}` })).toBe(200);
  });
});

describe('SPEC §9 the relay upgrade checks Origin against its allowlist and Host against its own address', () => {
  it('SPEC §9 null and malformed origins are 403; other-port, https and unlisted extension origins are closed with 4430 and get nothing else; the demo origin in its loopback forms opens', async () => {
    const demoPort = new URL(demoOrigin).port;
    for (const origin of ['null', `http://127.0.0.1:${demoPort}.evil.example`, `http://127.0.0.1:${demoPort}/path`]) {
      expect(await relayUpgrade({ origin }), origin).toBe(403);
      refusals.relayUpgrade += 1;
    }
    for (const origin of [
      `https://127.0.0.1:${demoPort}`,
      `http://127.0.0.2:${demoPort}`,
      `http://127.0.0.1:${mcp.port}`,
      'chrome-extension://abcdefghijklmnopabcdefghijklmnop',
    ]) {
      // A browser hides a refused upgrade's status; the close code and reason tell the page, and nothing else reaches it.
      const outcome = await upgradeOutcome(new URL('/relay', relayUrl).toString(), { origin });
      expect(outcome, origin).toEqual({
        status: 101,
        close: { code: CLOSE_CODES.originNotAllowed, reason: expect.stringContaining(`--allowed-origin ${origin}`) },
        frames: 0,
      });
      refusals.relayUpgrade += 1;
    }
    expect(server.logs()).not.toMatch(/evil\.example|\/path/);
    for (const host of [
      `localhost.attacker.example:${mcp.port}`,
      `0x7f000001:${mcp.port}`,
      `[0:0:0:0:0:0:0:1]:${mcp.port}`,
    ]) {
      expect(await relayUpgrade({ origin: demoOrigin, host }), host).toBe(403);
      refusals.relayUpgrade += 1;
    }
    expect(await relayUpgrade({ origin: demoOrigin }, '/relay/x')).toBe(404);
    for (const origin of [`HTTP://127.0.0.1:${demoPort}`, `http://localhost:${demoPort}`, `http://[::1]:${demoPort}`]) {
      expect(await relayUpgrade({ origin }), origin).toBe(101);
    }
  });
});

describe('SPEC §9 pairing codes and credentials on the real relay', () => {
  it('SPEC §9 guessed codes are refused with 4401; nineteen in a minute leave the printed code, which pairs once, then is refused', async () => {
    const alphabet = '23456789ABCDEFGHJKMNPQRSTWXYZ';
    const code = new URL(server.ready.pairUrl!).hash.replace('#pair=', '');
    // The twentieth wrong code in a minute would burn it (e2e/hardening.test.ts).
    for (let i = 0; i < 19; i += 1) {
      let guess = '';
      for (let k = 0; k < 8; k += 1) guess += alphabet[Math.floor(Math.random() * alphabet.length)];
      guess = `${guess.slice(0, 4)}-${guess.slice(4)}`;
      if (guess === code) continue;
      const tab = await RawTab.open();
      const outcome = await tab.hello({ kind: 'pair', code: guess });
      expect(outcome.closed?.code).toBe(CLOSE_CODES.unauthorized);
      refusals.pairCodes += 1;
    }
    const tab = await RawTab.open();
    const paired = await tab.hello({ kind: 'pair', code });
    expect(paired.welcome?.credential).toBeDefined();
    rawCredential = paired.welcome!.credential!;
    secrets.push(rawCredential.secret);
    tab.close();
    const again = await RawTab.open();
    expect((await again.hello({ kind: 'pair', code })).closed?.code).toBe(CLOSE_CODES.unauthorized);
    refusals.pairCodes += 1;
    const forged = await RawTab.open();
    const wrong = { ...rawCredential, secret: `${rawCredential.secret.slice(0, -2)}xx` };
    expect((await forged.hello({ kind: 'credential', credential: wrong })).closed?.code).toBe(CLOSE_CODES.unauthorized);
    refusals.credentials += 1;
  });

  it('SPEC §9 malformed, binary, oversized, 100,000-deep and out-of-order frames each close their socket with a relay code', async () => {
    const deep = `${'['.repeat(100_000)}"QZXDEEPXZQ"${']'.repeat(100_000)}`;
    const attacks: Array<[string, (tab: RawTabSocket) => void, number[]]> = [
      ['not JSON', (tab) => tab.send('{"t":"response", QZXRAWXZQ'), [CLOSE_CODES.malformed]],
      ['schema', (tab) => tab.send({ t: 'response', id: 'x', QZXKEYXZQ: 1 }), [CLOSE_CODES.malformed]],
      ['binary', (tab) => tab.sendBinary(Buffer.from('QZXBINXZQ')), [CLOSE_CODES.malformed]],
      [
        'second hello',
        (tab) =>
          tab.send({
            t: 'hello',
            v: 1,
            agent: { kind: 'page', version: 't' },
            auth: { kind: 'pair', code: 'QZXHELLOXZQ' },
          }),
        [CLOSE_CODES.malformed],
      ],
      ['deep', (tab) => tab.send(`{"t":"progress","id":"r1","progress":${deep}}`), [CLOSE_CODES.malformed]],
      // `ws` enforces the frame limit itself (1009) before our 4413 would.
      [
        'oversized',
        (tab) => tab.send(`{"t":"ping","n":1,"pad":"${'x'.repeat(9 * 1024 * 1024)}"}`),
        [1009, CLOSE_CODES.tooLarge],
      ],
      ['foreign session', (tab) => tab.send({ t: 'session.close', sessionId: 's_not_mine' }), [CLOSE_CODES.malformed]],
    ];
    for (const [what, attack, codes] of attacks) {
      const { tab } = await RawTab.withSession(rawCredential, what);
      attack(tab);
      const closed = await tab.closed;
      expect(codes, `${what} closed with ${closed.code}`).toContain(closed.code);
      refusals.frames += 1;
    }
    const early = await RawTab.open();
    early.send({ t: 'ping', n: 1 });
    early.send({ t: 'session.open', ref: 'r', info: { title: 'QZXEARLYXZQ' }, catalog: TEST_CATALOG });
    expect((await early.closed).code).toBe(CLOSE_CODES.malformed);
    refusals.frames += 1;
  });

  it('SPEC §9 a tab answering another tab’s request is closed 4400, and the owner’s answer still reaches the caller', async () => {
    const owner = await RawTab.withSession(rawCredential, 'owner');
    const thief = await RawTab.withSession(rawCredential, 'thief');
    const pending = callTool<CallReceipt>(client, 'tradescript_call', {
      sessionId: owner.sessionId,
      target: { scope: 'session' },
      controlId: 'chart.getVisibleRange',
      requestId: 'owned-request',
    });
    const request = await owner.tab.next('request');
    if (request.op.kind !== 'call') throw new Error('expected a call');
    const receipt = (result: unknown) => ({
      t: 'response',
      id: request.id,
      environment: 'paper',
      outcome: {
        ok: true,
        data: {
          operationId: request.op.kind === 'call' ? request.op.call.operationId : '',
          origin: 'mcp',
          controlId: 'chart.getVisibleRange',
          target: { scope: 'session' },
          mutation: false,
          revisionsBefore: {},
          revisionsAfter: {},
          durationMs: 1,
          result,
        },
      },
    });
    thief.tab.send(receipt({ forged: 'QZXFORGEDXZQ' }));
    expect((await thief.tab.closed).code).toBe(CLOSE_CODES.malformed);
    refusals.frames += 1;
    owner.tab.send(receipt({ from: 'owner' }));
    const answer = await pending;
    expect(answer.envelope.data?.result).toEqual({ from: 'owner' });
    expect(answer.envelope.meta).toMatchObject({ sessionId: owner.sessionId, requestId: 'owned-request' });
    owner.tab.close();
  });
});

describe('SPEC §9 §11 a revoked host', () => {
  it('SPEC §9 `sessions revoke ID` unpairs the tab, closes its socket, ends its session and refuses its credential', async () => {
    const { page } = await newPage(browser);
    const sessionId = await pairPage(page, freshCode().pairUrl);
    const credential = await page.evaluate(
      () =>
        new Promise<unknown>((resolve, reject) => {
          const open = indexedDB.open('tradescript-bridge');
          open.onerror = () => reject(new Error('no bridge database'));
          open.onsuccess = () => {
            const read = open.result.transaction('credentials').objectStore('credentials').get('host');
            read.onsuccess = () => resolve(read.result);
          };
        }),
    );
    const { hostId, secret } = credential as Credential;
    secrets.push(secret);
    const out = execFileSync(process.execPath, [serverBin, 'sessions', 'revoke', sessionId], {
      env: { ...process.env, TRADESCRIPT_MCP_HOME: server.home },
      encoding: 'utf8',
    });
    expect(out).toContain(hostId);
    await page.waitForFunction(
      () => (window as unknown as DemoWindow).__tradescriptDemo?.bridgeStatus().state === 'unpaired',
      undefined,
      { timeout: 15_000, polling: 50 },
    );
    const call = await callTool(client, 'tradescript_get_context', { sessionId, target: { scope: 'session' } });
    expect(call.envelope.error).toMatchObject({ code: 'session_closed', retry: 'after_user_action' });
    const replay = await RawTab.open();
    expect((await replay.hello({ kind: 'credential', credential: { hostId, secret } })).closed?.code).toBe(
      CLOSE_CODES.unauthorized,
    );
    refusals.credentials += 1;
    await page.close();
  });
});

/** The attacker's page: tries the relay, the MCP endpoint, the demo's storage and frame; reports what worked. */
const ATTACKER_PAGE = (relay: string, mcpUrl: string, demo: string) => `<!doctype html><meta charset="utf-8">
<iframe id="victim" src="${demo}"></iframe>
<script>
window.report = (async () => {
  const out = {};
  // Each subprotocol offer a page can make: the plain relay, the batch one, and the call-context one a
  // current bridge offers first (the server must refuse the origin before it chooses among them).
  out.relay = [];
  for (const offer of [['tradescript.relay.v1'], ['tradescript.relay.v1.batch', 'tradescript.relay.v1'],
    ['tradescript.relay.v1.context', 'tradescript.relay.v1.batch', 'tradescript.relay.v1'], ['tradescript.relay.v1.context']]) {
    out.relay.push(await new Promise((resolve) => {
      const ws = new WebSocket(${JSON.stringify(relay)}, offer);
      let messages = 0;
      ws.onopen = () => ws.send(JSON.stringify({ t: 'hello', v: 1, agent: { kind: 'page', version: 'x' }, auth: { kind: 'pair', code: 'QZXPAIRXZQ' } }));
      ws.onmessage = () => (messages += 1);
      ws.onclose = (e) => resolve(offer[0] + ': closed ' + e.code + ' after ' + messages + ' messages');
    }));
  }
  out.mcp = await fetch(${JSON.stringify(mcpUrl)}, { method: 'POST', mode: 'no-cors', body: '{}' }).then(
    (r) => 'sent (opaque ' + r.type + ')', (e) => 'blocked ' + e.name);
  out.readCors = await fetch(${JSON.stringify(mcpUrl)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then(
    () => 'read', (e) => 'blocked ' + e.name);
  out.databases = (await indexedDB.databases()).map((d) => d.name);
  const frame = document.getElementById('victim');
  await new Promise((resolve) => (frame.contentWindow && frame.contentDocument === null ? resolve() : frame.onload = resolve));
  try { out.frameDom = String(frame.contentWindow.document.title); } catch (e) { out.frameDom = 'blocked ' + e.name; }
  try { out.frameHooks = typeof frame.contentWindow.__tradescriptDemo; } catch (e) { out.frameHooks = 'blocked ' + e.name; }
  for (const message of [{ t: 'pair', code: 'QZXPOSTXZQ' }, { type: 'tradescript', op: 'call', controlId: 'orders.placeOrder' }, 'QZXPOSTXZQ']) {
    frame.contentWindow.postMessage(message, '*');
  }
  return out;
})();
</script>`;

describe('SPEC §9 a page on another origin', () => {
  let attacker: Server | undefined;
  afterAll(() => attacker?.close());

  it('SPEC §9 cannot open the relay, read MCP answers, see the demo’s IndexedDB or DOM, or drive the demo by postMessage', async () => {
    const { page: victim } = await newPage(browser);
    const victimSession = await pairPage(victim, freshCode().pairUrl);
    attacker = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(ATTACKER_PAGE(relayUrl, mcp.url, server.ready.demoUrl!));
    });
    await new Promise<void>((resolve) => attacker!.listen(0, '127.0.0.1', resolve));
    const { page } = await newPage(browser);
    await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
    const report = await page.evaluate(
      () => (window as unknown as { report: Promise<Record<string, unknown>> }).report,
    );
    // Told why (4430, SPEC §9), and nothing else: not a single frame, its hello never read.
    expect(report['relay']).toEqual(
      [
        'tradescript.relay.v1',
        'tradescript.relay.v1.batch',
        'tradescript.relay.v1.context',
        'tradescript.relay.v1.context',
      ].map((first) => `${first}: closed ${CLOSE_CODES.originNotAllowed} after 0 messages`),
    );
    expect(report['readCors']).toMatch(/^blocked/);
    expect(report['databases']).not.toContain('tradescript-bridge');
    expect(report['frameDom']).toMatch(/^blocked/);
    expect(report['frameHooks']).toMatch(/^blocked/);
    refusals.foreignPage += 8; // four relay offers, CORS read, storage, DOM, hooks
    const status = await victim.evaluate(() => (window as unknown as DemoWindow).__tradescriptDemo!.bridgeStatus());
    expect(status).toMatchObject({ state: 'paired', sessionId: victimSession });
    // frame-ancestors 'none': the browser never runs the demo inside the attacker's frame, so it pairs nothing
    // (e2e/hardening.test.ts frames it from the terminal's own browser profile).
    const framed = page.frames().find((frame) => frame.url().startsWith(server.ready.demoUrl!));
    expect(framed).toBeUndefined();
    const listed = JSON.parse(
      ((await client.readResource({ uri: SESSIONS_URI })).contents[0] as { text: string }).text,
    ) as SessionsDocument;
    expect(listed.sessions.every((s) => s.origin === demoOrigin)).toBe(true);
    await page.close();
    await victim.close();
  });
});

describe('SPEC §4 §11 nothing hostile is echoed or logged', () => {
  it('SPEC §11 logs never carry pairing codes, credentials, marker argument values or broker text', async () => {
    const { page } = await newPage(browser);
    const sessionId = await pairPage(page, freshCode().pairUrl);
    const marked = await callTool(client, 'tradescript_call', {
      sessionId,
      target: { scope: 'session' },
      controlId: 'orders.previewOrder',
      args: [
        {
          accountId: 'PAPER-001',
          symbol: 'BTCUSDT',
          side: 'buy',
          type: 'limit',
          quantity: '0.01',
          limitPrice: '1.00',
          clientOrderId: 'QZXARGXZQ',
        },
      ],
    });
    // A definite broker "no" with broker text: it reaches the agent redacted, never the log.
    expect(marked.envelope.error).toMatchObject({ code: 'broker_rejection', broker_code: 'PRICE_OUT_OF_BAND' });
    const rejected = await callTool(client, 'tradescript_call', {
      sessionId,
      target: { scope: 'session' },
      controlId: 'orders.list',
      QZXUNKNOWNKEYXZQ: 'QZXVALUEXZQ',
    });
    expect(JSON.stringify(rejected.result)).not.toMatch(MARKED);
    await page.close();
    const logs = server.logs();
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(logs, 'a secret in the log').not.toContain(secret);
    expect(logs).not.toMatch(/QZX[A-Z0-9]*XZQ|pair=|PRICE_OUT_OF_BAND|50% away|broker_message/);
  });
});

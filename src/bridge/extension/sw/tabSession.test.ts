/**
 * The extension's service-worker pipeline without Chrome (SPEC §2, §10): a
 * real relay connection against a scripted relay, one tab session per page,
 * and the page's end of the link on a real MessageChannel in front of a real
 * host SDK. What crosses the channel is parsed as the content script parses it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocketServer } from 'ws';
import { WebSocket } from 'ws';
import { ExtensionMessageSchema, type ActivityItem, type LinkStatus } from '../../../protocol/wire/extensionLink.js';
import type { BrowserFrame, Grant } from '../../../protocol/index.js';
import { createTerminalHost } from '../../../sdk/host.js';
import { MemoryLedger } from '../../../sdk/ledger/memoryLedger.js';
import { CHART, call, chartController, chartImpl } from '../../../sdk/testing/fixtures.js';
import type { TerminalHost } from '../../../sdk/types.js';
import { RelayClient } from '../../relay/relayClient.js';
import { createMemoryCredentialStore } from '../../relay/browserCredentials.js';
import { knownCredential, listenScriptedRelay } from '../../testing/listeningRelay.js';
import type { ScriptedRelay } from '../../testing/scriptedRelay.js';
import { requestFrame, type PeerRecord } from '../../testing/scriptedRelay.js';
import { portEndpoint, type LinkEndpoint } from '../../link/linkEndpoint.js';
import { ExtensionPageEnd } from '../page/pageEnd.js';
import { TabSession, tabLinkClient } from './tabSession.js';

const ORIGIN = 'http://127.0.0.1:7392';
let wss: WebSocketServer;
let relay: ScriptedRelay;
let connection: RelayClient;
let channels: MessageChannel[];
let nextId = 0;

beforeEach(async () => {
  let url: string;
  ({ wss, relay, url } = await listenScriptedRelay());
  relay.credential = knownCredential();
  channels = [];
  connection = new RelayClient({
    url,
    webSocket: WebSocket,
    credentials: createMemoryCredentialStore(relay.credential),
    agent: { kind: 'extension', version: 'test' },
    random: () => 0,
  });
  connection.start();
});

afterEach(async () => {
  connection.close();
  for (const channel of channels) [channel.port1, channel.port2].forEach((port) => port.close());
  for (const client of wss.clients) client.terminate();
  await new Promise((resolve) => wss.close(resolve));
  expect(relay.invalidFrames).toBe(0);
});

/** A page (host + its end of the link) and its tab session, wired as the content script wires them. */
async function attachTab(keptSessionId: string | null = null, grant: Grant = 'write') {
  const host: TerminalHost = createTerminalHost({
    environment: 'paper',
    ledger: new MemoryLedger(),
    controllers: [chartController],
  });
  host.registerTarget(CHART, { label: 'Chart' });
  host.mount(CHART, chartController, chartImpl());
  const channel = new MessageChannel();
  channels.push(channel);
  const statuses: LinkStatus[] = [];
  const activity: ActivityItem[] = [];
  const kept: string[] = [];
  let session: TabSession | null = null;
  const port = portEndpoint(channel.port2);
  // What the service worker sends is parsed as the content script parses it.
  const endpoint: LinkEndpoint = {
    post: (m) => port.post(ExtensionMessageSchema.parse(m)),
    get onmessage() {
      return port.onmessage;
    },
    set onmessage(listener) {
      port.onmessage = listener;
    },
    close: () => port.close(),
  };
  const attached = new Promise<void>((resolve) => {
    const client = tabLinkClient(
      endpoint,
      { decode: () => Promise.reject(new Error('no images in Node')) },
      (message) => {
        if (message.t !== 'attach') return session?.receive(message);
        session = new TabSession(
          {
            tabId: 7,
            origin: ORIGIN,
            url: `${ORIGIN}/terminal`,
            grant,
            keptSessionId,
            client,
            send: (m) => endpoint.post(m),
            onChange: () => undefined,
            onSessionId: (id) => kept.push(id),
            onActivity: (items) => activity.push(...items),
          },
          message,
        );
        session.open(connection);
        resolve();
      },
    );
  });
  new ExtensionPageEnd(host, channel.port1, {
    info: () => ({ title: 'Terminal', environment: 'paper', grant: host.grant }),
    onStatus: (status) => statuses.push(status),
  });
  await attached;
  await vi.waitFor(() => expect(statuses.at(-1)?.state).toBe('paired'));
  return { host, session: session!, statuses, activity, kept, peer: relay.latest!, channel };
}

async function ask(peer: PeerRecord, sessionId: string, op: Parameters<typeof requestFrame>[2]) {
  const id = `req-${++nextId}`;
  relay.send(peer, requestFrame(id, sessionId, op));
  return vi.waitFor(() => {
    const frame = peer.frames.find(
      (f): f is Extract<BrowserFrame, { t: 'response' }> => f.t === 'response' && f.id === id,
    );
    if (!frame) throw new Error('no answer yet');
    return frame.outcome;
  });
}

describe('SPEC §10 the extension serves a tab through its link', () => {
  it('opens the tab’s session with the site origin and the person’s grant, and keeps the id the server gave', async () => {
    const { kept, statuses, host } = await attachTab(null, 'read');
    const open = relay.framesOf('session.open')[0]!;
    expect(open).toMatchObject({
      origin: ORIGIN,
      info: { title: 'Terminal', url: `${ORIGIN}/terminal`, environment: 'paper', grant: 'read' },
    });
    expect(open.sessionId).toBeUndefined();
    expect(kept).toEqual(['session-1']);
    expect(statuses.at(-1)).toMatchObject({ state: 'paired', sessionId: 'session-1' });
    // The page's host now holds the site's grant, whatever it started with.
    expect(host.grant).toBe('read');
  });

  it('reopens under a kept id (a restarted service worker), and routes a call to the page’s SDK', async () => {
    const { peer, activity } = await attachTab('kept-7');
    expect(relay.framesOf('session.open')[0]?.sessionId).toBe('kept-7');
    const outcome = await ask(peer, 'kept-7', call('chart.setVisibleRange', CHART, [{ from: 5, to: 9 }], {}));
    expect(outcome.ok).toBe(false); // no expectedRevisions: the SDK's own validation answers
    const fixed = await ask(peer, 'kept-7', {
      kind: 'call',
      call: { ...call('chart.setVisibleRange', CHART, [{ from: 5, to: 9 }]).call, expectedRevisions: { viewport: 0 } },
    });
    expect(fixed).toMatchObject({ ok: true, data: { controlId: 'chart.setVisibleRange', result: { from: 5, to: 9 } } });
    expect(activity.map((a) => [a.controlId, a.outcome])).toEqual([
      ['chart.setVisibleRange', 'invalid_input'],
      ['chart.setVisibleRange', 'ok'],
    ]);
  });

  it('a grant change reaches the page’s host before the next call, and the server in a session.update', async () => {
    const { session, host, peer } = await attachTab('kept-8');
    session.setGrant('read');
    await vi.waitFor(() => expect(host.grant).toBe('read'));
    expect(relay.framesOf('session.update').at(-1)?.info.grant).toBe('read');
    const denied = await ask(peer, 'kept-8', {
      kind: 'call',
      call: { ...call('chart.setVisibleRange', CHART, [{ from: 1, to: 2 }]).call, expectedRevisions: { viewport: 0 } },
    });
    expect(denied).toMatchObject({
      ok: false,
      error: { code: 'control_unavailable', details: { reason: 'attachment-grant' } },
    });
  });

  it('closing the link closes the session on the relay (the server reports what was in flight as lost)', async () => {
    const { session } = await attachTab('kept-9');
    session.close();
    await vi.waitFor(() =>
      expect(relay.framesOf('session.close')).toEqual([{ t: 'session.close', sessionId: 'kept-9' }]),
    );
  });
});

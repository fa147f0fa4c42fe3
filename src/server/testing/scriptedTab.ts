/**
 * A scripted terminal tab for tests of the hub and of MCP fronts: it connects
 * to a {@link Hub} over an in-memory socket, says hello, opens a session and
 * lets the test answer each request. No network, no browser.
 */
import { DEFAULT_LIMITS, relayLimitsOf } from '../../protocol/index.js';
import type { CatalogDocument, ControlDescriptor, RequestFrame, SessionInfo } from '../../protocol/index.js';
import type { RelayAuthenticator } from '../relay/relayAuth.js';
import { createMemorySocketPair, type MemoryClient } from '../relay/memorySocket.js';
import { Hub } from '../hub/hub.js';
import { createLogger } from '../log.js';

/** The secret {@link testAuthenticator} accepts. */
export const TEST_SECRET = 'test-secret-0123456789abcdef';

/** Accepts any host id presenting {@link TEST_SECRET}; for tests only. */
export function testAuthenticator(): RelayAuthenticator {
  return {
    authenticate: (auth) =>
      auth.kind === 'credential' && auth.credential.secret === TEST_SECRET
        ? { ok: true, hostId: auth.credential.hostId }
        : { ok: false, reason: 'credential not recognised' },
  };
}

/** A control descriptor with test defaults. */
export function testControl(controlId: string, mutation: boolean): ControlDescriptor {
  const [controller = 'test', method = 'run'] = controlId.split('.');
  return {
    controlId,
    controller,
    method,
    signature: `${method}(): unknown`,
    description: 'test control',
    args: [],
    targetScopes: ['session', 'chart', 'widget'],
    accessClass: mutation ? 'write' : 'read',
    family: controller,
    permission: mutation ? 'write' : 'read',
    mutation,
    risk: mutation ? 'write' : 'read',
    revisionDomains: [],
    operationOptionsIndex: null,
  };
}

/** A small catalog: `chart.getVisibleRange` (read) and `chart.setVisibleRange` (mutation). */
export const TEST_CATALOG: CatalogDocument = {
  controls: [testControl('chart.getVisibleRange', false), testControl('chart.setVisibleRange', true)],
  channels: [],
};

/** The hello a scripted page sends, with the {@link TEST_SECRET} credential, for tests that drive the relay frame by frame. */
export const TEST_HELLO = {
  t: 'hello',
  v: 1,
  agent: { kind: 'page', version: 'test' },
  auth: { kind: 'credential', credential: { hostId: 'h_x', secret: TEST_SECRET } },
} as const;

/** The `session.open` that follows {@link TEST_HELLO}, with {@link TEST_CATALOG}. */
export const TEST_SESSION_OPEN = { t: 'session.open', ref: 'r1', info: { title: 'T' }, catalog: TEST_CATALOG } as const;

/** A session-scoped `context` operation, the smallest request a hub test can send. */
export const TEST_SESSION_CONTEXT = { kind: 'context', target: { scope: 'session' } } as const;

/** Request options of a write-capable adapter with the default limits. */
export const TEST_REQUEST_OPTIONS = {
  adapter: { maxAccess: 'write', allowControls: null },
  limits: relayLimitsOf(DEFAULT_LIMITS),
  deadlineMs: 5_000,
} as const;

/**
 * A hub with {@link testAuthenticator} whose log lines are kept in `lines`,
 * and one in-memory relay socket to it (`batch`, `contexts`: what the socket
 * negotiated), on which the page has sent nothing yet.
 */
export function connectTestSocket(options: { batch?: boolean; contexts?: boolean } = {}) {
  const lines: string[] = [];
  const hub = new Hub({
    auth: testAuthenticator(),
    logger: createLogger('debug', (line) => lines.push(line)),
    serverVersion: '0.0.0-test',
  });
  const { server, client } = createMemorySocketPair(options);
  const conn = hub.connect(server, { origin: 'http://127.0.0.1:7392' });
  return { hub, conn, client, lines };
}

/** {@link connectTestSocket}, then {@link TEST_HELLO} and {@link TEST_SESSION_OPEN} in one message; with the session id. */
export async function attachTestSocket(options: { batch?: boolean; contexts?: boolean } = {}) {
  const socket = connectTestSocket(options);
  socket.client.sendText(JSON.stringify([TEST_HELLO, TEST_SESSION_OPEN]));
  const { sessionId } = await socket.client.next('session.opened');
  return { ...socket, sessionId };
}

/** Options of {@link openScriptedTab}. */
export interface ScriptedTabOptions {
  hostId?: string;
  origin?: string;
  /** A kept session id to present. */
  sessionId?: string;
  info?: SessionInfo;
  catalog?: CatalogDocument;
}

/** One scripted tab with an open session. */
export interface ScriptedTab {
  readonly client: MemoryClient;
  readonly sessionId: string;
  /** The next request frame the hub sent this tab. */
  nextRequest(): Promise<RequestFrame>;
  /** Answers a request with success data. */
  answer(id: string, data: unknown): void;
}

/** Connects a tab to `hub` with a credential for `hostId` and opens one session. */
export async function openScriptedTab(hub: Hub, options: ScriptedTabOptions = {}): Promise<ScriptedTab> {
  const { server, client } = createMemorySocketPair();
  hub.connect(server, { origin: options.origin ?? 'http://127.0.0.1:7392' });
  client.send({
    t: 'hello',
    v: 1,
    agent: { kind: 'page', version: 'test' },
    auth: { kind: 'credential', credential: { hostId: options.hostId ?? 'h_test', secret: TEST_SECRET } },
  });
  await client.next('welcome');
  client.send({
    t: 'session.open',
    ref: 'r1',
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
    info: options.info ?? { title: 'Test terminal', environment: 'paper', grant: 'write' },
    catalog: options.catalog ?? TEST_CATALOG,
  });
  const opened = await client.next('session.opened');
  return {
    client,
    sessionId: opened.sessionId,
    nextRequest: () => client.next('request'),
    answer: (id, data) => client.send({ t: 'response', id, environment: 'paper', outcome: { ok: true, data } }),
  };
}

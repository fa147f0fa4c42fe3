/**
 * Test support for cluster mode (SPEC §14): a real Redis, nodes started in
 * this process on loopback ports, a token file with two principals, and
 * terminal tabs made of the real bridge connection (`src/bridge/relay/relayClient.ts`)
 * over a real WebSocket with the tab's bearer token, answering requests from
 * a script (reads echo, writes count their dispatches per operation id).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { RelayClient } from '../bridge/relay/relayClient.js';
import { createMemoryCredentialStore, type BrowserCredentialStore } from '../bridge/relay/browserCredentials.js';
import type { RelaySession, SessionStatus } from '../bridge/relay/clientSessions.js';
import type { PairLinkResult } from '../bridge/page/bridgeTypes.js';
import {
  DEFAULT_LIMITS,
  relayLimitsOf,
  type CatalogDocument,
  type Operation,
  type RequestFrame,
} from '../protocol/index.js';
import { startClusterNode, type ClusterNode, type ClusterTiming } from '../server/cluster/clusterNode.js';
import { runAsPrincipal } from '../server/cluster/principalContext.js';
import type { HubTiming } from '../server/hub/hub.js';
import type { AttachmentHandle, HubOutcome } from '../server/hub/hubPort.js';
import { testControl } from '../server/testing/scriptedTab.js';
import { createLogger } from '../server/log.js';
import { testConfig } from '../server/testing/testHarness.js';
import { defaultAnswer } from '../server/testing/testHub.js';
import { startClusterProxy, type ClusterProxy } from './clusterProxy.js';
import { startTestRedis, type TestRedis } from './redisServer.js';
import { waitUntil } from './waitUntil.js';

/** The page origin tabs connect from (allowed by every node). */
export const TAB_ORIGIN = 'http://127.0.0.1:7999';
/** Two tenants and their tokens. */
export const TOKENS = { alice: 'alice-token-0123456789abcdef', bob: 'bob-token-0123456789abcdef00' } as const;
/** A tenant of {@link TOKENS}. */
export type TestPrincipal = keyof typeof TOKENS;

/** The catalog every test tab declares: one read, one write. */
export const TAB_CATALOG: CatalogDocument = {
  controls: [testControl('test.read', false), testControl('test.write', true)],
  channels: [],
};

/** Short timings so faults resolve quickly. */
export const FAST_CLUSTER: Partial<ClusterTiming> = { leaseMs: 1_500, watchMs: 100, releaseWaitMs: 500 };
const FAST_HUB: Partial<HubTiming> = { reconnectWaitMs: 4_000 };

/** A WebSocket that sends the tab's Origin, as a browser does. */
class TabWebSocket extends WebSocket {
  constructor(url: string, protocols?: string[]) {
    super(url, protocols, { origin: TAB_ORIGIN });
  }
}

const options = {
  adapter: { maxAccess: 'trade', allowControls: null },
  limits: relayLimitsOf(DEFAULT_LIMITS),
  deadlineMs: 10_000,
} as const;

/** A scripted terminal tab. */
export interface TestTab {
  readonly connection: RelayClient;
  readonly session: RelaySession;
  readonly credentials: BrowserCredentialStore;
  /** Requests received, in order. */
  readonly requests: RequestFrame[];
  /** Dispatches of `test.write` per operation id. */
  readonly dispatches: Map<string, number>;
  /** Makes `test.write` take this long before answering. */
  writeDelayMs: number;
  status(): SessionStatus;
  /** Resolves with the session id once the session is open. */
  opened(): Promise<string>;
  close(): void;
}

/** Opens a tab on `relayUrl` with `token`, pairing with `pairCode` or reconnecting with kept state. */
export function openTab(
  relayUrl: string,
  token: string,
  kept: {
    pairCode?: string;
    credentials?: BrowserCredentialStore;
    sessionId?: string | null;
    /** A pairing link opened in the tab once it is paired: what its code proposes. */
    onPairLink?: (result: PairLinkResult) => void;
    /** `echo` (default): answer `{echo: op}`; `mcp`: answer what an MCP front accepts (a call receipt …). */
    answers?: 'echo' | 'mcp';
  } = {},
): TestTab {
  const credentials = kept.credentials ?? createMemoryCredentialStore();
  const requests: RequestFrame[] = [];
  const dispatches = new Map<string, number>();
  let status: SessionStatus = { open: false, sessionId: kept.sessionId ?? null, attachments: [], message: null };
  const connection = new RelayClient({
    url: relayUrl,
    webSocket: TabWebSocket,
    credentials,
    agent: { kind: 'page', version: 'test' },
    pairCode: kept.pairCode ?? null,
    relayToken: token,
    random: () => 0.5,
    backoff: { baseMs: 50, capMs: 200, stableMs: 10_000 },
    ...(kept.onPairLink ? { onPairLink: kept.onPairLink } : {}),
  });
  const tab: TestTab = {
    connection,
    credentials,
    requests,
    dispatches,
    writeDelayMs: 0,
    session: connection.openSession({
      sessionId: kept.sessionId ?? null,
      info: { title: 'test tab', environment: 'paper' },
      catalog: TAB_CATALOG,
      onChange: (s) => void (status = s),
      handler: async (request) => {
        requests.push(request);
        const op = request.op;
        if (op.kind === 'call' && op.call.controlId === 'test.write') {
          dispatches.set(op.call.operationId, (dispatches.get(op.call.operationId) ?? 0) + 1);
          if (tab.writeDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, tab.writeDelayMs));
        }
        if (kept.answers === 'mcp') {
          const answer = defaultAnswer({ attachmentId: request.attachment.attachmentId, sessionId: '', op, options });
          const outcome = answer.ok
            ? { ok: true as const, data: answer.data }
            : { ok: false as const, error: answer.error };
          return { environment: 'paper', outcome };
        }
        return { environment: 'paper', outcome: { ok: true, data: { echo: op } } };
      },
    }),
    status: () => status,
    opened: async () => {
      await waitUntil(
        () => status.open && status.sessionId !== null,
        10_000,
        () => `the tab's session (${status.message})`,
      );
      return status.sessionId as string;
    },
    close: () => connection.close(),
  };
  connection.start();
  return tab;
}

/** A cluster of nodes on one Redis. */
export interface TestCluster {
  readonly redis: TestRedis;
  readonly nodes: ClusterNode[];
  /** The one address in front of every node (tabs connect here). */
  readonly proxy: ClusterProxy;
  /** `ws://127.0.0.1:PROXY/relay` */
  readonly relayUrl: string;
  readonly tokenFile: string;
  /** Starts one more node. */
  addNode(): Promise<ClusterNode>;
  /** Asks node `n` for a pairing code of `principal`. */
  pairCode(node: ClusterNode, principal: TestPrincipal): Promise<string>;
  close(): Promise<void>;
}

/** Starts Redis and `count` nodes. */
export async function startTestCluster(count: number): Promise<TestCluster> {
  const redis = await startTestRedis();
  const dir = mkdtempSync(join(tmpdir(), 'tradescript-cluster-'));
  const tokenFile = join(dir, 'tokens.json');
  const tokens = Object.entries(TOKENS).map(([principal, token]) => ({ principal, token }));
  writeFileSync(tokenFile, JSON.stringify({ version: 1, tokens }), { mode: 0o600 });
  const nodes: ClusterNode[] = [];
  const proxy = await startClusterProxy();
  const addNode = async () => {
    const node = await startClusterNode(testConfig({ allowedOrigins: [TAB_ORIGIN], logLevel: 'silent' }), {
      bind: { host: '127.0.0.1', port: 0 },
      cluster: { redisUrl: redis.url, tokenFile, publicUrl: proxy.origin },
      logger: createLogger('silent'),
      timing: FAST_HUB,
      clusterTiming: FAST_CLUSTER,
    });
    await node.mcpReady;
    await waitUntil(
      () => node.health().ready,
      10_000,
      () => 'the node to be ready',
    );
    nodes.push(node);
    proxy.targets.push(portOf(node));
    return node;
  };
  for (let i = 0; i < count; i++) await addNode();
  return {
    redis,
    nodes,
    proxy,
    relayUrl: `${proxy.origin.replace(/^http/, 'ws')}/relay`,
    tokenFile,
    addNode,
    async pairCode(node, principal) {
      const response = await fetch(node.urls.mcpUrl?.replace(/\/mcp$/, '/pair') ?? '', {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKENS[principal]}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      const body = (await response.json()) as { code: string };
      return body.code;
    },
    async close() {
      await proxy.close();
      await Promise.all(nodes.map((n) => n.close()));
      await redis.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An MCP client's attachment on `node`, as `principal`. */
export function attachAs(node: ClusterNode, principal: TestPrincipal): Promise<AttachmentHandle> {
  return runAsPrincipal(principal, () => node.hub.attach({ clientName: `${principal}-client`, transport: 'http' }));
}

/** A call of `controlId` with `args`, as the MCP front builds it. */
export function callOp(controlId: 'test.read' | 'test.write', operationId: string, args: unknown[] = []): Operation {
  return {
    kind: 'call',
    call: { target: { scope: 'session' }, controlId, args, operationId, callerOperationId: true },
  };
}

/** Sends `op` to `sessionId` through `node` on behalf of `principal`. */
export function requestAs(
  node: ClusterNode,
  principal: TestPrincipal,
  attachmentId: string,
  sessionId: string,
  op: Operation,
  deadlineMs = 10_000,
): Promise<HubOutcome> {
  return runAsPrincipal(principal, () =>
    node.hub.request(attachmentId, sessionId, op, {
      adapter: { maxAccess: 'trade', allowControls: null },
      limits: relayLimitsOf(DEFAULT_LIMITS),
      deadlineMs,
    }),
  );
}

/** The port a node listens on. */
export function portOf(node: ClusterNode): number {
  return Number(new URL(node.urls.mcpUrl ?? '').port);
}

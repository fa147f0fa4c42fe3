/**
 * Test support: the whole product in one Node process, no network and no
 * browser. A real SDK `Client` per MCP connection ↔ the real MCP front
 * (`createMcpServer`) ↔ the real {@link Hub} with real pairing (a temporary
 * home) ↔ an in-memory relay ({@link createMemoryRelay}) ↔ the real bridge
 * page runtime with its worker observer behind a real `MessageChannel` ↔ the real
 * page ports ↔ a real `createTerminalHost` with the SDK's test terminal (chart
 * `c1` with viewport and drawings, a financial orders controller over a fake
 * broker) and a `data.quotes` source on the chart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryCredentialStore } from '../bridge/relay/browserCredentials.js';
import { startSplitRuntime } from '../bridge/testing/splitRuntime.js';
import type { BridgeStatus } from '../bridge/page/bridgeTypes.js';
import type { PageRuntime } from '../bridge/runtime/pageRuntime.js';
import type { Grant } from '../protocol/index.js';
import { quotesChannel } from '../sdk/channels/builtins.js';
import { CountingSource } from '../sdk/testing/channelFixtures.js';
import { CHART, terminal } from '../sdk/testing/fixtures.js';
import { Hub, type HubTiming } from '../server/hub/hub.js';
import { createLogger } from '../server/log.js';
import { connectFront, type Harness, type HarnessOptions } from '../server/testing/testHarness.js';
import { Pairing } from '../server/pairing/pairing.js';
import { createMemoryRelay, type MemoryRelay } from './memoryRelay.js';
import { waitUntil } from './waitUntil.js';

export { CHART, SESSION, order } from '../sdk/testing/fixtures.js';

/** Options of {@link startFullStack}. */
export interface FullStackOptions {
  /** The page's grant (default `trade`, so the adapter maximum decides). */
  grant?: Grant;
  /** Hub timings (short reconnect waits for fault tests). */
  hubTiming?: Partial<HubTiming>;
}

/** A running in-process stack with one paired tab. */
export interface FullStack {
  readonly hub: Hub;
  readonly relay: MemoryRelay;
  /** The tab's host SDK and its fixtures. */
  readonly tab: ReturnType<typeof terminal>;
  /** The `data.quotes` source on chart `c1`: `emit` pushes one raw quote to every binding. */
  readonly quotes: CountingSource;
  /** The tab's session id. */
  readonly sessionId: string;
  /** The hub's log lines (fronts keep their own, in each harness's `logs`). */
  readonly logs: string[];
  /** The bridge's latest status. */
  status(): BridgeStatus;
  /** Connects one more MCP client through its own front; closed with the stack. */
  connect(options?: HarnessOptions): Promise<Harness<Hub>>;
  /** Resolves once the tab is paired with its session open (bounded). */
  paired(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the stack and pairs the tab with a real single-use code. Every wait
 * is bounded; a stack that cannot pair rejects with its last bridge status.
 */
export async function startFullStack(options: FullStackOptions = {}): Promise<FullStack> {
  const home = mkdtempSync(join(tmpdir(), 'tradescript-fullstack-'));
  const logs: string[] = [];
  const pairing = new Pairing({ home });
  const hub = new Hub({
    auth: pairing,
    logger: createLogger('debug', (line) => logs.push(line)),
    serverVersion: '0.0.0-test',
    ...(options.hubTiming ? { timing: options.hubTiming } : {}),
  });
  // Batches negotiated, as between a current browser and server.
  const relay = createMemoryRelay(hub, { batch: true });
  const grant = options.grant ?? 'trade';
  const tab = terminal({ grant });
  const quotes = new CountingSource();
  tab.host.provideChannel(CHART, quotesChannel, quotes);

  let latest: BridgeStatus = { state: 'disconnected', sessionId: null, attachments: [], message: null };
  let runtime: PageRuntime | null = null;
  const harnesses: Harness<Hub>[] = [];
  const close = async () => {
    for (const harness of harnesses) await harness.close().catch(() => undefined);
    runtime?.close();
    hub.close();
    rmSync(home, { recursive: true, force: true });
  };
  const paired = (timeoutMs = 5_000) =>
    waitUntil(
      () => latest.state === 'paired' && latest.sessionId !== null,
      timeoutMs,
      () => `the tab to pair (${JSON.stringify(latest)})`,
    );

  try {
    const { code } = pairing.issueCode(grant);
    const info = { title: 'Full-stack terminal', environment: 'paper' as const, grant };
    runtime = startSplitRuntime(
      tab.host,
      { relayUrl: 'ws://memory.invalid/relay', pairCode: code, info, agentVersion: 'test' },
      { status: (status) => (latest = status) },
      { webSocket: relay.webSocket, credentials: createMemoryCredentialStore(), random: () => 0 },
    );
    await paired();
  } catch (error) {
    await close();
    throw error;
  }
  return {
    hub,
    relay,
    tab,
    quotes,
    sessionId: latest.sessionId!,
    logs,
    status: () => latest,
    paired,
    async connect(harnessOptions = {}) {
      const harness = await connectFront(hub, harnessOptions);
      harnesses.push(harness);
      return harness;
    },
    close,
  };
}

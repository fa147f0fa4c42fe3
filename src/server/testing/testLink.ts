/**
 * Test wiring for the hub link: a real {@link Hub} with its
 * {@link HubLinkServer}, and {@link RemoteHub}s linked to it over in-memory
 * sockets. No network; a link can be cut as a crashed process would.
 */
import { DEFAULT_LIMITS, relayLimitsOf, type Operation, type RelayLimits } from '../../protocol/index.js';
import { Hub, type HubTiming } from '../hub/hub.js';
import type { HubRequestOptions } from '../hub/hubPort.js';
import { testAuthenticator } from './scriptedTab.js';
import { createLogger } from '../log.js';
import { HubLinkServer } from '../hubLink/hubLinkServer.js';
import { createMemoryHubLink, type MemoryHubLink } from './memoryHubLink.js';
import { RemoteHub } from '../hubLink/remoteHub.js';

const limits = relayLimitsOf(DEFAULT_LIMITS);
/** The relay's share of the default limits. */
export const TEST_RELAY_LIMITS: RelayLimits = limits;

/** A hub in "another process", serving fronts over memory links. */
export interface LinkedHub {
  readonly hub: Hub;
  readonly links: HubLinkServer;
  /** Origins fronts announced. */
  readonly origins: string[];
  /** Links a new front; resolves once it is welcomed. */
  front(relayOrigins?: string[]): Promise<{ remote: RemoteHub; link: MemoryHubLink }>;
  close(): void;
}

/** Starts a hub with a link server. */
export function linkedHub(timing: Partial<HubTiming> = {}): LinkedHub {
  const logger = createLogger('silent');
  const hub = new Hub({ auth: testAuthenticator(), logger, serverVersion: '0.0.0-test', timing });
  const origins: string[] = [];
  const links = new HubLinkServer({
    hub,
    logger,
    serverVersion: '0.0.0-test',
    relayUrl: () => 'ws://127.0.0.1:7391/relay',
    pair: (grant) => ({ code: `CODE-${grant}`, expiresAt: 0 }),
    addRelayOrigins: (list) => origins.push(...list),
  });
  return {
    hub,
    links,
    origins,
    async front(relayOrigins = []) {
      const link = createMemoryHubLink();
      links.accept(link.hubEnd);
      const remote = new RemoteHub(link.frontEnd, { logger, relayOrigins });
      await remote.welcome;
      return { remote, link };
    },
    close() {
      links.close();
      hub.close();
    },
  };
}

/** Request options with a write-only adapter maximum. */
export function requestOptions(extra: Partial<HubRequestOptions> = {}): HubRequestOptions {
  return {
    adapter: { maxAccess: 'write', allowControls: null },
    limits: TEST_RELAY_LIMITS,
    deadlineMs: 30_000,
    ...extra,
  };
}

const target = { scope: 'chart', chartId: 'main' } as const;

/** A call of `controlId` with a caller-owned operation id. */
export function callOp(controlId: string, operationId = 'op-1'): Operation {
  return { kind: 'call', call: { target, controlId, args: [], operationId, callerOperationId: true } };
}

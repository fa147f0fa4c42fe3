/**
 * A `RelayClient` as the relay client tests make it: Node's `ws` socket, a
 * fixed page agent and no backoff jitter, over `credentials`; `extra`
 * overrides or adds options (a clock, a status listener).
 */
import { WebSocket } from 'ws';
import type { BrowserCredentialStore } from '../relay/browserCredentials.js';
import { RelayClient, type RelayClientOptions } from '../relay/relayClient.js';

/** A relay client for `url` with the tests' defaults. */
export function testRelayClient(
  url: string,
  credentials: BrowserCredentialStore,
  extra: Partial<RelayClientOptions> = {},
): RelayClient {
  return new RelayClient({
    url,
    webSocket: WebSocket,
    credentials,
    agent: { kind: 'page', version: 'test' },
    random: () => 0,
    ...extra,
  });
}

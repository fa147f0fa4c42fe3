/**
 * A {@link ScriptedRelay} on a loopback `ws` server, as the relay client and
 * page runtime tests start it before each test, and the credential they pair
 * with.
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type ServerOptions } from 'ws';
import type { Credential } from '../../protocol/index.js';
import { ScriptedRelay } from './scriptedRelay.js';

/** A listening scripted relay. */
export interface ListeningRelay {
  wss: WebSocketServer;
  relay: ScriptedRelay;
  /** `ws://127.0.0.1:PORT` */
  url: string;
}

/** The credential a test's relay knows (a fresh object: a test may change it). */
export function knownCredential(): Credential {
  return { hostId: 'host-1', secret: 'the-current-secret-0001' };
}

/** Starts a scripted relay on a free loopback port; `options` add to the `ws` server's (e.g. `handleProtocols`). */
export async function listenScriptedRelay(options: Omit<ServerOptions, 'host' | 'port'> = {}): Promise<ListeningRelay> {
  const wss = new WebSocketServer({ ...options, host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => wss.once('listening', resolve));
  const relay = new ScriptedRelay();
  relay.serve(wss);
  return { wss, relay, url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}` };
}

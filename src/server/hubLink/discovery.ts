/**
 * Finding a live hub (SPEC §9): `hub.json` names it; a file whose process is
 * gone is stale (detected without touching the network), and a live-looking
 * one must answer the hub link within a short timeout, so a crashed or hung
 * hub never costs a starting process more than that.
 */
import { connect } from 'node:net';
import { readHubFile, type HubFile } from '../http/hubFile.js';
import type { Logger } from '../log.js';
import type { LinkWelcome, RemoteHub, RemoteHubOptions } from './remoteHub.js';

/** A `hub.json` a later process may join. */
export type JoinableHubFile = HubFile & { frontUrl: string; frontToken: string };

/** What `hub.json` says. */
export type HubLookup = { kind: 'none' } | { kind: 'stale'; file: HubFile } | { kind: 'live'; file: JoinableHubFile };

/** How long a starting process waits for a live-looking hub to answer. */
export const JOIN_TIMEOUT_MS = 400;

/** True when process `pid` exists (ours included; EPERM means it exists under another user). */
export function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Reads `hub.json`: none, stale (its process is gone, or it has no hub link), or live. */
export function lookupHub(home: string): HubLookup {
  const file = readHubFile(home);
  if (!file) return { kind: 'none' };
  if (file.frontUrl === undefined || file.frontToken === undefined || !pidAlive(file.pid))
    return { kind: 'stale', file };
  return { kind: 'live', file: file as JoinableHubFile };
}

/** How long a starting process waits for a live-looking hub's port to accept a connection. */
export const PROBE_TIMEOUT_MS = 250;

/**
 * The hub `hub.json` names when its process exists and its port accepts a
 * connection (a plain TCP connect: no `ws`, no handshake, so the ready line
 * does not wait for them); null otherwise.
 */
export async function probeHub(home: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<JoinableHubFile | null> {
  const found = lookupHub(home);
  if (found.kind !== 'live') return null;
  const url = new URL(found.file.frontUrl);
  const open = await new Promise<boolean>((resolve) => {
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
  return open ? found.file : null;
}

/** A joined hub. */
export interface JoinedHub {
  remote: RemoteHub;
  welcome: LinkWelcome;
  file: JoinableHubFile;
}

/** Options of {@link joinHub}. */
export interface JoinOptions extends RemoteHubOptions {
  logger: Logger;
  timeoutMs?: number;
}

/** Links to the hub `hub.json` names; null when there is none or it does not answer in time. */
export async function joinHub(home: string, options: JoinOptions): Promise<JoinedHub | null> {
  const found = lookupHub(home);
  if (found.kind !== 'live') return null;
  const timeoutMs = options.timeoutMs ?? JOIN_TIMEOUT_MS;
  const started = Date.now();
  // Loaded only by a process that links to a hub (an idle hub never does).
  const [{ openLinkSocket }, { RemoteHub }] = await Promise.all([
    import('./linkWebSocket.js'),
    import('./remoteHub.js'),
  ]);
  const socket = await openLinkSocket(found.file.frontUrl, found.file.frontToken, timeoutMs);
  if (!socket) return null;
  const remote = new RemoteHub(socket, options);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(resolve, Math.max(1, timeoutMs - (Date.now() - started)), null);
  });
  const welcome = await Promise.race([remote.welcome.catch(() => null), timeout]);
  clearTimeout(timer);
  if (!welcome) {
    remote.close();
    return null;
  }
  return { remote, welcome, file: found.file };
}

/**
 * The page entry: connects the terminal's host SDK to the relay from this
 * thread and starts the bridge worker for its subscriptions and snapshots
 * (SPEC §1, §2; `../runtime/pageRuntime.ts`).
 *
 * Tab lifetime: the session id lives in `sessionStorage`, so a reload of the
 * same tab presents it again and keeps its session, while a new tab starts
 * its own. No `pagehide` handler sends `session.close`: a reload fires the
 * same event as a close and cannot be told apart at that moment, and closing
 * the session there would end it on every reload. When the tab goes away its
 * socket and worker go with it and the server sees the socket close; an
 * explicit `close()` (the terminal unmounting the bridge) ends the session,
 * and the worker ends itself once its observer closed.
 */
import type { SessionInfo } from '../../protocol/index.js';
import type { TerminalHost } from '../../sdk/types.js';
import type { PortLike } from '../link/linkEndpoint.js';
import { createIdbCredentialStore } from '../relay/browserCredentials.js';
import { startPageRuntime, type PageNotices, type PageRuntime, type RuntimeConfig } from '../runtime/pageRuntime.js';
import type { BridgeHandle, BridgeStatus, ConnectOptions } from './bridgeTypes.js';
import { watchRelayCsp } from './cspWatch.js';
import { BRIDGE_VERSION } from './version.js';

/** Where the tab keeps its session id. */
export const SESSION_STORAGE_KEY = 'tradescript.sessionId';

const MAX_TITLE = 200;
const MAX_URL = 2048;

function keptSessionId(): string | null {
  try {
    return globalThis.sessionStorage?.getItem(SESSION_STORAGE_KEY) ?? null;
  } catch {
    return null; // storage disabled (sandboxed frame, privacy mode): a reload gets a new session
  }
}

function keepSessionId(sessionId: string | null): void {
  if (sessionId === null) return;
  try {
    if (globalThis.sessionStorage?.getItem(SESSION_STORAGE_KEY) !== sessionId) {
      globalThis.sessionStorage?.setItem(SESSION_STORAGE_KEY, sessionId);
    }
  } catch {
    // As above: the session still works, it is just not kept across reloads.
  }
}

/** The session's info; the URL without query or fragment (a `#pair=` code must never travel). */
function sessionInfo(host: Pick<TerminalHost, 'environment' | 'grant'>, title: string): SessionInfo {
  const location = globalThis.location as Location | undefined;
  const url = location ? `${location.origin}${location.pathname}` : undefined;
  return {
    title: title.slice(0, MAX_TITLE),
    ...(url !== undefined && url.length <= MAX_URL ? { url } : {}),
    environment: host.environment,
    grant: host.grant,
  };
}

/**
 * Starts a module worker from wherever the bundle is served. A same-origin URL
 * starts as is; a cross-origin one (the prebuilt files on a CDN), which a
 * browser refuses as a worker script, starts through a same-origin blob that
 * imports it (the CDN must allow CORS, as it must for any module script).
 */
function ModuleWorker(url: URL | string, workerOptions?: WorkerOptions): Worker {
  const href = new URL(url, location.href);
  if (href.origin === location.origin) return new globalThis.Worker(href, workerOptions);
  const trampoline = URL.createObjectURL(
    new Blob([`import ${JSON.stringify(href.href)};`], { type: 'text/javascript' }),
  );
  return new globalThis.Worker(trampoline, { ...workerOptions, type: 'module' });
}

function startWorker(options: ConnectOptions): Worker {
  // Named Worker so the bundler still sees `new Worker(new URL(…, import.meta.url))` and builds the worker.
  const Worker = ModuleWorker as unknown as typeof globalThis.Worker;
  return options.createWorker?.() ?? new Worker(new URL('../worker/worker.ts', import.meta.url), { type: 'module' });
}

/** The runtime on this thread (loaded with the page's bridge), driving the worker's observer. */
function startRuntime(host: TerminalHost, worker: Worker, config: RuntimeConfig, notices: PageNotices): PageRuntime {
  return startPageRuntime(host, config, notices, {
    webSocket: WebSocket,
    credentials: createIdbCredentialStore(),
    worker: worker as unknown as PortLike,
  });
}

/**
 * Connects `host` to the relay and returns its handle: the socket and the
 * session on this thread, subscriptions and snapshots in a bridge worker.
 * `onStatus` hears every change; the session id is kept for reloads of this tab.
 */
export function connectBridge(host: TerminalHost, options: ConnectOptions): BridgeHandle {
  const worker = startWorker(options);
  let title = options.title;
  let current: BridgeStatus = { state: 'connecting', sessionId: keptSessionId(), attachments: [], message: null };
  // Set once the page's own policy refused the relay socket: until it pairs, that is what the person must fix.
  let blocked: string | null = null;
  const report = (status: BridgeStatus): void => {
    current = blocked !== null && status.state !== 'paired' ? { ...status, message: blocked } : status;
    keepSessionId(current.sessionId);
    options.onStatus?.(current);
  };
  const stopCspWatch = watchRelayCsp(options.relayUrl, (message) => {
    blocked = message;
    report(current);
  });
  const notices: PageNotices = {
    status: report,
    grantProposed: (grant) => options.onGrantProposed?.(grant),
    pairLink: (result) => options.onPairLink?.(result),
    attachmentEnded: (attachmentId) => options.onAttachmentEnded?.(attachmentId),
  };
  const config = {
    relayUrl: options.relayUrl,
    pairCode: options.pairCode ?? null,
    relayToken: options.relayToken ?? null,
    sessionId: current.sessionId,
    info: sessionInfo(host, title),
    agentVersion: BRIDGE_VERSION,
  };
  let runtime: PageRuntime | null = startRuntime(host, worker, config, notices);
  // A worker that fails to load never says hello: without it no timer of the relay runs.
  let started = false;
  worker.addEventListener('message', () => (started = true), { once: true });
  worker.addEventListener('error', () => {
    if (started || runtime === null) return;
    runtime.close();
    runtime = null;
    report({
      ...current,
      state: 'disconnected',
      message: 'The bridge worker could not start; reload the terminal tab.',
    });
  });
  return {
    status: () => current,
    detachAll: () => runtime?.detachAll(),
    updateInfo: (newTitle) => {
      title = newTitle ?? title;
      runtime?.updateInfo(sessionInfo(host, title), host.catalog());
    },
    pair: (code) => runtime?.pair(code),
    setRelayToken: (token) => runtime?.setRelayToken(token),
    close: () => {
      stopCspWatch();
      runtime?.close();
      runtime = null;
    },
  };
}

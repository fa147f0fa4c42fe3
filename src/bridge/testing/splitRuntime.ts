/**
 * Test support: the embedded bridge as `connectBridge` wires it, in Node: the
 * page runtime (`startPageRuntime`) and the worker's observer (`serveObserver`)
 * on the two ends of a real MessageChannel.
 */
import type { SubscriptionJournal } from '../observe/subscriptionJournal.js';
import type { BrowserCredentialStore } from '../relay/browserCredentials.js';
import type { BrowserSocketConstructor } from '../relay/browserSocket.js';
import type { Clock } from '../relay/clock.js';
import {
  startPageRuntime,
  type PageNotices,
  type PageRuntime,
  type RuntimeConfig,
  type RuntimeHost,
} from '../runtime/pageRuntime.js';
import { serveObserver } from '../worker/observerServer.js';

/** What a split runtime runs on. */
export interface SplitRuntimeDeps {
  webSocket: BrowserSocketConstructor;
  credentials: BrowserCredentialStore;
  random?: () => number;
  /** One clock for the relay and the observer; without it the relay's timers run on the worker's clock. */
  clock?: Clock;
  /** Where the worker keeps the page's relay timers (default its real clock). */
  timers?: Clock;
  journal?: SubscriptionJournal;
}

const quiet: PageNotices = {
  status: () => undefined,
  grantProposed: () => undefined,
  pairLink: () => undefined,
  attachmentEnded: () => undefined,
};

/** Starts the page runtime against a worker observer behind a MessageChannel; `close` closes both and the ports. */
export function startSplitRuntime(
  host: RuntimeHost,
  config: RuntimeConfig,
  notices: Partial<PageNotices>,
  deps: SplitRuntimeDeps,
): PageRuntime {
  const channel = new MessageChannel();
  const worker = serveObserver(channel.port1, { clock: deps.clock, timers: deps.timers, journal: deps.journal });
  const runtime = startPageRuntime(
    host,
    config,
    { ...quiet, ...notices },
    {
      webSocket: deps.webSocket,
      credentials: deps.credentials,
      random: deps.random,
      clock: deps.clock,
      worker: channel.port2,
    },
  );
  return {
    updateInfo: (info, catalog) => runtime.updateInfo(info, catalog),
    pair: (code) => runtime.pair(code),
    setRelayToken: (token) => runtime.setRelayToken(token),
    detachAll: () => runtime.detachAll(),
    close() {
      runtime.close();
      worker.close();
      channel.port1.close();
      channel.port2.close();
    },
  };
}

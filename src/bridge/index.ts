/**
 * The bridge runtime's public API (SPEC §1, §2, §9). Pages call
 * {@link connectBridge}; the Chrome extension reuses the connection, sessions
 * and credential stores in its service worker. Any new export here becomes
 * public API.
 */
export { connectBridge, SESSION_STORAGE_KEY } from './page.js';
export type { BridgeHandle, BridgeState, BridgeStatus, ConnectOptions } from './types.js';

export { RelayConnection } from './connection.js';
export type { AgentInfo, ConnectionOptions, ConnectionStatus } from './connection.js';
export type {
  HandlerHooks,
  HandlerResult,
  RelaySession,
  RequestHandler,
  SessionOptions,
  SessionStatus,
} from './sessions.js';
export type { RelaySocket, RelaySocketConstructor } from './socket.js';
export { systemClock, type Clock } from './clock.js';
export { DEFAULT_BACKOFF, backoffDelay, type BackoffPolicy } from './backoff.js';

export {
  CREDENTIAL_DB_NAME,
  createIdbCredentialStore,
  createMemoryCredentialStore,
  type CredentialStore,
} from './credentialStore.js';

export { createBridgeRuntime, type RuntimeDeps } from './runtime.js';
export { createHostRouter, type HostCalls, type HostRouter } from './hostRouter.js';
export type { BridgeRuntimeApi, PagePort, RuntimeConfig } from './workerApi.js';
export { BRIDGE_VERSION } from './version.js';

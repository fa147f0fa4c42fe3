/**
 * The Node entry point (`tradescript-mcp/server`): start a server in-process,
 * or build pieces of one. Any new export here becomes public API.
 */
export { startServer, type McpServerMaker, type RunningServer, type StartOptions } from './process/startServer.js';
export type { McpExtension, OwnHandlers } from './mcp/createMcpServer.js';
export { parseCommand, UsageError, type Command } from './cli/args.js';
export { buildConfig } from './cli/buildConfig.js';
export type { ServerConfig } from './config.js';
export { createLogger, LOG_LEVELS, type Logger, type LogLevel } from './log.js';
export { Hub, DEFAULT_HUB_TIMING, type HubOptions, type HubStatus, type HubTiming } from './hub/hub.js';
export type {
  AttachmentHandle,
  AttachmentInfo,
  HubEvents,
  HubOutcome,
  HubPort,
  HubRequestOptions,
} from './hub/hubPort.js';
export { Pairing, CODE_REFUSED, CREDENTIAL_REFUSED, type PairingOptions } from './pairing/pairing.js';
export type { RelayPeer, RelaySocket } from './relay/relaySocket.js';
export { createMemorySocketPair, type MemoryClient } from './relay/memorySocket.js';
export type { ServerUrls, PairAnswer, StatusAnswer } from './http/adminApi.js';
export type { BoundAddress } from './http/requestGuard.js';

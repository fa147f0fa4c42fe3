/**
 * The e2e harness: the real CLI, real MCP clients, real Chromium. Everything it
 * opens is closed after the test file's last test at the latest (an `afterAll`
 * registered here) and killed if the process exits; call `close()` earlier for
 * isolation between tests.
 */
import { afterAll } from 'vitest';
import { closeAll } from './cleanup.js';

export { CHROMIUM_ARGS, chromiumPath, launchBrowser, launchPersistentBrowser, newPage } from './browser.js';
export type { HarnessPage, LaunchOptions, PersistentBrowser, PersistentLaunchOptions } from './browser.js';
export { closeAll, settleWithin, track } from './cleanup.js';
export type { LineLog } from './lineLog.js';
export { connectHttpClient, connectStdioClient, connectV1HttpClient, connectV1StdioClient } from './mcpClients.js';
export type { AnyMcpClient, Era, HttpClientOptions, StdioClientHandle, StdioClientOptions } from './mcpClients.js';
export { pairPage } from './pairing.js';
export { rawInitializeStatus, upgradeOutcome, upgradeStatus } from './rawRequests.js';
export type { UpgradeOutcome } from './rawRequests.js';
export { repoRoot, serverBin } from './paths.js';
export { perRequestSignalFetch } from './perRequestFetch.js';
export type { FetchLike } from './perRequestFetch.js';
export { isAlive, killTree, pidsWithArgument, processTree } from './processTree.js';
export {
  logLines,
  PAIR_LINE_PREFIX,
  parseReadyLine,
  READY_PREFIX,
  ReadyInfoSchema,
  waitForReady,
} from './readyLine.js';
export type { ReadyInfo } from './readyLine.js';
export { startServer } from './server.js';
export type { ServerHandle, StartServerOptions } from './server.js';
export { harnessTimeouts } from './timeouts.js';
export { callTool, imageBytes } from './tools.js';
export type { ToolCall } from './tools.js';

// Outside vitest (a bench script importing the harness) there is no test file to hook.
if (process.env.VITEST) afterAll(closeAll);

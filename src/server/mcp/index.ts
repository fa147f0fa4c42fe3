/**
 * The MCP front: one SDK `Server` per MCP connection, calling the hub through
 * `HubPort`. Any new export here becomes public API.
 */
export {
  createMcpServer,
  createStatelessMcpServer,
  type McpExtension,
  type McpServerOptions,
  type OwnHandlers,
} from './createMcpServer.js';
export { createHttpFront, type HttpFront, type HttpFrontOptions } from './httpFront.js';
export { fixedKeySource, homeKeySource, type HandleKeySource } from './attachments/attachmentKey.js';
export { DEFAULT_SERVED_TOOLS } from './tools/toolList.js';

/**
 * The MCP front: one SDK `Server` per MCP connection, calling the hub through
 * `HubPort`. Any new export here becomes public API.
 */
export { createMcpServer, type McpServerOptions } from './createMcpServer.js';
export { DEFAULT_SERVED_TOOLS } from './toolList.js';

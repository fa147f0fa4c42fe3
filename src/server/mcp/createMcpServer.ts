/**
 * The MCP front of one connection (SPEC §1–§3): a low-level SDK `Server` that
 * serves the tools, resources and prompt and calls the hub through `HubPort`.
 * One Server = one MCP connection = one attachment.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { relayLimitsOf, SESSIONS_URI, type ToolName } from '../../protocol/index.js';
import type { ServerConfig } from '../config.js';
import type { HubPort } from '../hub/hubPort.js';
import type { Logger } from '../log.js';
import { boundedClientName, createAttachment, type Attachment } from './attachment.js';
import { createCallToolHandler, type CallToolDeps } from './callTool.js';
import { wireHubEvents, type ConnectionState } from './hubEvents.js';
import { getOperatorPrompt, operatorPrompt } from './operatorPrompt.js';
import { listResources, listResourceTemplates, readResource } from './resources.js';
import { SubscriptionRoutes } from './subscriptions.js';
import { DEFAULT_SERVED_TOOLS, listedTools } from './toolList.js';

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** The hub this front attaches to. */
  hub: HubPort;
  /** This process's startup flags: adapter maximum, tool allowlist, limits. */
  config: ServerConfig;
  logger: Logger;
  /** How the client is connected, reported to the hub and the page. */
  transport: 'stdio' | 'http';
  /** The package version, shown as serverInfo.version. */
  serverVersion: string;
  /** Tools this front serves (default {@link DEFAULT_SERVED_TOOLS}); the allowlist narrows them further. */
  tools?: readonly ToolName[];
}

const INSTRUCTIONS =
  'TradeScript relays to a paired browser trading terminal. Read tradescript://sessions, then call ' +
  'tradescript_get_context on {"scope":"session"}, then tradescript_list_controls on an explicit target, ' +
  'then tradescript_call. The tradescript_operator prompt explains revisions and uncertain outcomes.';

/**
 * Keeps our lifecycle handling when the transport owner also sets
 * `server.onclose` or `server.oninitialized`: theirs runs after ours instead
 * of replacing it.
 */
function chainHook(server: Server, hook: 'onclose' | 'oninitialized', ours: () => void): void {
  let theirs: (() => void) | undefined;
  Object.defineProperty(server, hook, {
    configurable: true,
    get: () => () => {
      ours();
      theirs?.();
    },
    set: (handler: (() => void) | undefined) => {
      theirs = handler;
    },
  });
}

function registerToolHandlers(server: Server, deps: CallToolDeps) {
  const tools = listedTools(deps.served, deps.config.toolAllowlist);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, createCallToolHandler(deps));
}

function registerResourceHandlers(
  server: Server,
  options: McpServerOptions,
  attachment: Attachment,
  state: ConnectionState,
) {
  const deps = {
    hub: options.hub,
    config: options.config,
    attachment,
    relayLimits: relayLimitsOf(options.config.limits),
  };
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await listResources(options.hub) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: listResourceTemplates() }));
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
    readResource(deps, request.params.uri, extra.signal),
  );
  const onlySessions = (uri: string) => {
    if (uri !== SESSIONS_URI) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Only ${SESSIONS_URI} supports subscriptions; read other resources again instead.`,
      );
    }
  };
  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    onlySessions(request.params.uri);
    state.subscribed.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    onlySessions(request.params.uri);
    state.subscribed.delete(request.params.uri);
    return {};
  });
}

function registerPromptHandlers(server: Server) {
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [operatorPrompt] }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => getOperatorPrompt(request.params.name));
}

/**
 * Creates the MCP server of one connection. It attaches to the hub when the
 * client finishes initialization and detaches when the connection closes;
 * connect it to exactly one transport.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const { hub, config, transport } = options;
  const logger = options.logger.child('mcp');
  const served = new Set<ToolName>(options.tools ?? DEFAULT_SERVED_TOOLS);
  const server = new Server(
    { name: 'tradescript-mcp', title: 'TradeScript MCP', version: options.serverVersion },
    {
      capabilities: { tools: {}, resources: { subscribe: true, listChanged: true }, prompts: {} },
      instructions: INSTRUCTIONS,
    },
  );
  const attachment = createAttachment(
    hub,
    () => ({ clientName: boundedClientName(server.getClientVersion()?.name), transport }),
    logger,
  );
  const state: ConnectionState = { initialized: false, subscribed: new Set() };
  const relayLimits = relayLimitsOf(config.limits);
  const routes = new SubscriptionRoutes();
  registerToolHandlers(server, { hub, config, logger, attachment, served, routes, relayLimits });
  registerResourceHandlers(server, options, attachment, state);
  registerPromptHandlers(server);
  const unwire = wireHubEvents(server, hub, attachment, state, logger);
  chainHook(server, 'oninitialized', () => {
    state.initialized = true;
    // Failure is logged by the attachment; the next request tries again.
    attachment.ready().catch(() => undefined);
  });
  chainHook(server, 'onclose', () => {
    unwire();
    attachment.end().catch(() => logger.warn('detach failed', { attachmentId: attachment.id }));
  });
  return server;
}

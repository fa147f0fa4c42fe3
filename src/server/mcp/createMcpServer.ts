/**
 * The MCP front (SPEC §1–§3, §13): a low-level SDK v2 `Server` that serves the
 * tools, resources and prompt on both protocol revisions and calls the hub
 * through `HubPort`. Two kinds of instance share every handler:
 *
 * - {@link createMcpServer}: one per connection (stdio on either revision, a
 *   2025-11-25 `Mcp-Session-Id`, an in-memory pair) = one attachment;
 * - {@link createStatelessMcpServer}: one per 2026-07-28 HTTP request, whose
 *   tool calls name their attachment with the `attachment` handle
 *   (docs/protocolRevisions.md).
 *
 * Tool definitions and JSON Schemas are derived once per process
 * (`toolList.ts`); an instance only binds the handlers, which costs
 * microseconds, so a fresh instance per request does not slow the call path.
 */
import {
  CLIENT_INFO_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type CacheHint,
  type Server,
  type CallToolRequest,
  type CallToolResult,
  type GetPromptRequest,
  type GetPromptResult,
  type Prompt,
  type ReadResourceRequest,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/server';
import { relayLimitsOf, SESSIONS_URI, type RelayLimits, type ToolName } from '../../protocol/index.js';
import type { ServerConfig } from '../config.js';
import type { HubPort } from '../hub/hubPort.js';
import type { Logger } from '../log.js';
import { boundedClientName, createAttachment } from './attachments/attachment.js';
import { connectionScope, statelessScope, type AttachmentScope } from './attachments/attachmentScope.js';
import { createCallToolHandler, type HandlerExtra } from './tools/callTool.js';
import { wireHubEvents, type ConnectionState } from './hubEvents.js';
import { getOperatorPrompt, operatorPrompt } from './operatorPrompt.js';
import { listResources, listResourceTemplates, readResource } from './mcpResources.js';
import type { StatelessAttachments } from './attachments/statelessAttachments.js';
import { DEFAULT_SERVED_TOOLS, listedTools } from './tools/toolList.js';
import { ToolsCallServer } from './toolsCallServer.js';

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
  /** The revision family the instance serves (`serveStdio` says; default legacy, the 2025 handshake). */
  era?: 'legacy' | 'modern';
  /** Adds to every instance (test fixtures only, such as the conformance suite's; the product adds nothing). */
  extend?: McpExtension;
}

/** The product's own handlers, for an {@link McpExtension} that serves more next to them. */
export interface OwnHandlers {
  listTools(): Tool[];
  callTool(request: CallToolRequest, extra: HandlerExtra): Promise<CallToolResult>;
  listResources(): Promise<Resource[]>;
  listResourceTemplates(): ResourceTemplate[];
  readResource(request: ReadResourceRequest, extra: HandlerExtra): Promise<ReadResourceResult>;
  listPrompts(): Prompt[];
  getPrompt(request: GetPromptRequest): GetPromptResult;
  subscribe?(uri: string): void;
  unsubscribe?(uri: string): void;
}

/**
 * Re-registers handlers of one instance to serve more than the product (its
 * own handlers passed in to fall back on). Only tests use it: the conformance
 * suite's fixture tools are never in the product's tool list.
 */
export type McpExtension = (server: Server, own: OwnHandlers) => void;

/** What a stateless instance adds: the front's stateless attachments and who is asking. */
export interface StatelessOptions {
  attachments: StatelessAttachments;
  /** Empty on one machine; the authenticated principal in a cluster. */
  principal: string;
}

const INSTRUCTIONS =
  'TradeScript relays to a paired browser trading terminal. Read tradescript://sessions, then call ' +
  'tradescript_get_context on {"scope":"session"}, then tradescript_list_controls on an explicit target, ' +
  'then tradescript_call. The tradescript_operator prompt explains revisions and uncertain outcomes. ' +
  'When a result carries meta.attachment, pass it as the attachment argument of every later call.';

/** Static lists stay true for the life of the process (its flags do not change): cacheable by anyone. */
const STATIC_LIST: CacheHint = { ttlMs: 5 * 60_000, cacheScope: 'public' };

/**
 * Cache hints of 2026-07-28 results (SPEC §13). `resources/list` and
 * `resources/read` follow the paired sessions, so they keep the SDK's
 * default: not cached, private.
 */
const CACHE_HINTS = {
  'tools/list': STATIC_LIST,
  'prompts/list': STATIC_LIST,
  'resources/templates/list': STATIC_LIST,
  'server/discover': STATIC_LIST,
};

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

function newServer(options: McpServerOptions): ToolsCallServer {
  return new ToolsCallServer(
    { name: 'tradescript-mcp', title: 'TradeScript MCP', version: options.serverVersion },
    {
      capabilities: { tools: {}, resources: { subscribe: true, listChanged: true }, prompts: {} },
      instructions: INSTRUCTIONS,
      cacheHints: CACHE_HINTS,
    },
  );
}

/** The client's name: per request on 2026-07-28 (the envelope), from `initialize` on 2025. */
function clientNameOf(server: Server, extra: HandlerExtra | undefined): string {
  const envelope = extra?.mcpReq.envelope as Record<string, { name?: unknown } | undefined> | undefined;
  const fromEnvelope = envelope?.[CLIENT_INFO_META_KEY]?.name;
  return boundedClientName(typeof fromEnvelope === 'string' ? fromEnvelope : server.getClientVersion()?.name);
}

const relayLimitsCache = new WeakMap<ServerConfig['limits'], RelayLimits>();

/** The relay limits of a process's limits, derived once (an instance per request must stay cheap). */
function relayLimitsFor(limits: ServerConfig['limits']): RelayLimits {
  let derived = relayLimitsCache.get(limits);
  if (!derived) relayLimitsCache.set(limits, (derived = relayLimitsOf(limits)));
  return derived;
}

/** Binds every handler of one instance; returns them for an extension. */
function registerHandlers(server: ToolsCallServer, options: McpServerOptions, scope: AttachmentScope): OwnHandlers {
  const { hub, config } = options;
  const logger = options.logger.child('mcp');
  const served = new Set<ToolName>(options.tools ?? DEFAULT_SERVED_TOOLS);
  const relayLimits = relayLimitsFor(config.limits);
  const tools = listedTools(served, config.toolAllowlist, scope.takesHandle);
  const clientName = (extra: HandlerExtra) => clientNameOf(server, extra);
  const callTool = createCallToolHandler({ hub, config, logger, scope, clientName, served, relayLimits });
  const own: OwnHandlers = {
    listTools: () => tools,
    callTool: async (request, extra) => server.projectCallToolResult(await callTool(request, extra), undefined),
    listResources: () => listResources(hub),
    listResourceTemplates,
    readResource: (request, extra) =>
      readResource(
        { hub, config, scope, clientName: clientName(extra), relayLimits },
        request.params.uri,
        extra.mcpReq.signal,
      ),
    listPrompts: () => [operatorPrompt],
    getPrompt: (request) => getOperatorPrompt(request.params.name),
  };
  server.setRequestHandler('tools/list', () => ({ tools: own.listTools() }));
  server.serveOwnToolCalls((request, extra) => own.callTool(request, extra));
  server.setRequestHandler('resources/list', async () => ({ resources: await own.listResources() }));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: own.listResourceTemplates() }));
  server.setRequestHandler('resources/read', (request, extra) => own.readResource(request, extra));
  server.setRequestHandler('prompts/list', () => ({ prompts: own.listPrompts() }));
  server.setRequestHandler('prompts/get', (request) => own.getPrompt(request));
  return own;
}

/** 2025-11-25 `resources/subscribe` (2026-07-28 clients use `subscriptions/listen` instead). */
function registerResourceSubscriptions(server: Server, state: ConnectionState, own: OwnHandlers): void {
  const onlySessions = (uri: string) => {
    if (uri !== SESSIONS_URI) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Only ${SESSIONS_URI} supports subscriptions; read other resources again instead.`,
      );
    }
  };
  own.subscribe = (uri) => {
    onlySessions(uri);
    state.subscribed.add(uri);
  };
  own.unsubscribe = (uri) => {
    onlySessions(uri);
    state.subscribed.delete(uri);
  };
  server.setRequestHandler('resources/subscribe', (request) => (own.subscribe?.(request.params.uri), {}));
  server.setRequestHandler('resources/unsubscribe', (request) => (own.unsubscribe?.(request.params.uri), {}));
}

/**
 * Creates the MCP server of one connection. A 2025 client attaches when it
 * finishes initialization; a 2026 one at its first call. It detaches when the
 * connection closes; connect it to exactly one transport.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const { hub, transport } = options;
  const logger = options.logger.child('mcp');
  const server = newServer(options);
  // A 2026 client names itself on each request, not at an initialize: the attachment takes the first name it hears.
  let heardName: string | undefined;
  const describe = () => ({ clientName: heardName ?? boundedClientName(server.getClientVersion()?.name), transport });
  const attachment = createAttachment(hub, describe, logger);
  const modern = options.era === 'modern';
  const state: ConnectionState = { initialized: modern, modern, subscribed: new Set() };
  const own = registerHandlers(
    server,
    options,
    connectionScope(attachment, (name) => (heardName ??= name)),
  );
  registerResourceSubscriptions(server, state, own);
  options.extend?.(server, own);
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

/**
 * Creates the instance serving one stateless 2026-07-28 HTTP request. It
 * holds no connection state: its tool calls find their attachment from the
 * `attachment` handle, its resource reads through the front's reader.
 */
export function createStatelessMcpServer(options: McpServerOptions, stateless: StatelessOptions): Server {
  const server = newServer(options);
  const scope = statelessScope({
    attachments: stateless.attachments,
    hub: options.hub,
    principal: stateless.principal,
  });
  const own = registerHandlers(server, options, scope);
  options.extend?.(server, own);
  return server;
}

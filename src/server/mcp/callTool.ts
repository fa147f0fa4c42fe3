/**
 * `tools/call` (SPEC §3–§6): unknown tool → JSON-RPC error; outside the
 * allowlist → `tool_not_available`; then the server's own input checks, one
 * hub request (one relay round trip, a batch included), and the answer checked
 * and shaped into the envelope. Logs carry ids and codes only.
 */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ErrorCode,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import {
  makeError,
  type ErrorObject,
  type Limits,
  type Operation,
  type RelayLimits,
  type ToolName,
} from '../../protocol/index.js';
import type { ServerConfig } from '../config.js';
import type { HubOutcome, HubPort } from '../hub/hubPort.js';
import type { Logger } from '../log.js';
import type { Attachment } from './attachment.js';
import { errorResult, successResult, type MetaSource } from './envelope.js';
import { checkInput, safeRequestId, type ParsedInput } from './inputChecks.js';
import { planOperation } from './operations.js';
import { progressForwarder } from './progress.js';
import { shapeFailure, shapeSuccess } from './results.js';
import { runSubscribe, type RoutedOutcome, type SubscriptionRoutes } from './subscriptions.js';
import { findServedTool, isToolAllowed } from './toolList.js';

/** The request context the SDK hands a handler. */
export type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What the `tools/call` handler works with. */
export interface CallToolDeps {
  hub: HubPort;
  config: ServerConfig;
  logger: Logger;
  attachment: Attachment;
  served: ReadonlySet<ToolName>;
  routes: SubscriptionRoutes;
  relayLimits: RelayLimits;
}

/** Sends the validated request to the page and returns who answered and how. */
async function execute(
  parsed: ParsedInput,
  deps: CallToolDeps,
  request: CallToolRequest,
  extra: HandlerExtra,
): Promise<RoutedOutcome> {
  const handle = await deps.attachment.ready();
  const onProgress = progressForwarder(
    { progressToken: request.params._meta?.progressToken, sendNotification: extra.sendNotification },
    deps.logger,
  );
  const send = (sessionId: string, op: Operation): Promise<HubOutcome> =>
    deps.hub.request(handle.attachmentId, sessionId, op, {
      adapter: deps.config.adapter,
      limits: deps.relayLimits,
      deadlineMs: deps.config.limits.callDeadlineMs,
      signal: extra.signal,
      ...(onProgress ? { onProgress } : {}),
    });
  if (parsed.name === 'tradescript_subscribe') return runSubscribe(parsed.input, deps.routes, send);
  const plan = planOperation(parsed, () => deps.attachment.nextOperationId());
  return { sessionId: plan.sessionId, outcome: await send(plan.sessionId, plan.op) };
}

/** One tool run: its result, its error code (null on success) and the session it named. */
interface ToolRun {
  result: CallToolResult;
  code: ErrorObject['code'] | null;
  sessionId: string | null;
}

/** Checks the page's answer and builds the envelope from it. */
function answer(parsed: ParsedInput, routed: RoutedOutcome, limits: Limits, requestId: string | undefined): ToolRun {
  const { outcome } = routed;
  // An id the server does not know is neither echoed nor logged (SPEC §11): meta.sessionId is null.
  const unknown = !outcome.ok && outcome.error.code === 'session_not_found';
  const sessionId = unknown ? null : routed.sessionId;
  const meta: MetaSource = { sessionId, environment: outcome.environment, requestId };
  const calls = parsed.name === 'tradescript_batch' ? parsed.input.calls.length : 0;
  const shaped = outcome.ok
    ? shapeSuccess(parsed.name, outcome, limits, calls)
    : { ok: false as const, error: shapeFailure(outcome.error) };
  if (shaped.ok) return { result: successResult(shaped.data, meta, shaped.images), code: null, sessionId };
  return { result: errorResult(shaped.error, meta), code: shaped.error.code, sessionId };
}

async function runTool(
  name: ToolName,
  args: unknown,
  deps: CallToolDeps,
  request: CallToolRequest,
  extra: HandlerExtra,
): Promise<ToolRun> {
  const requestId = safeRequestId(name, args);
  const local = (error: ErrorObject, sessionId: string | null = null): ToolRun => ({
    result: errorResult(error, { sessionId, environment: null, requestId }),
    code: error.code,
    sessionId,
  });
  if (!isToolAllowed(deps.config.toolAllowlist, name)) {
    const message = `${name} is turned off for this server (--tool-allowlist); use the tools listed by tools/list.`;
    return local(makeError('tool_not_available', message));
  }
  const checked = checkInput(name, args, deps.config.limits);
  if (!checked.ok) return local(checked.error);
  let routed: RoutedOutcome;
  try {
    routed = await execute(checked.parsed, deps, request, extra);
  } catch {
    const message = 'The server could not reach its hub; restart the MCP server and re-read context.';
    // Without the hub nothing says whether the named session exists: it is not echoed.
    return local(makeError('internal_error', message));
  }
  return answer(checked.parsed, routed, deps.config.limits, requestId);
}

/** Creates the `tools/call` handler of one connection. */
export function createCallToolHandler(deps: CallToolDeps) {
  return async (request: CallToolRequest, extra: HandlerExtra): Promise<CallToolResult> => {
    const tool = findServedTool(deps.served, request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, 'Unknown tool: call tools/list and use one of the tools it lists.');
    }
    const startedAt = Date.now();
    const { result, code, sessionId } = await runTool(tool.name, request.params.arguments ?? {}, deps, request, extra);
    const fields = {
      tool: tool.name,
      attachmentId: deps.attachment.id,
      sessionId,
      requestId: safeRequestId(tool.name, request.params.arguments),
      code,
      durationMs: Date.now() - startedAt,
    };
    if (code === 'internal_error') deps.logger.warn('tool failed', fields);
    else if (code === null) deps.logger.debug('tool ok', fields);
    else deps.logger.info('tool error', fields);
    return result;
  };
}

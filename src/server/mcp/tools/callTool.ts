/**
 * `tools/call` (SPEC §3–§6): unknown tool → JSON-RPC error; outside the
 * allowlist → `tool_not_available`; then the server's own input checks, one
 * hub request (one relay round trip, a batch included), and the answer checked
 * and shaped into the envelope. Logs carry ids and codes only.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolRequest,
  type CallToolResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  AttachmentHandleSchema,
  ATTACHMENT_ARGUMENT,
  makeError,
  type ErrorObject,
  type Limits,
  type Operation,
  type RelayLimits,
  type ToolName,
} from '../../../protocol/index.js';
import type { ServerConfig } from '../../config.js';
import type { HubOutcome, HubPort } from '../../hub/hubPort.js';
import type { Logger } from '../../log.js';
import type { AttachmentScope, CallScope } from '../attachments/attachmentScope.js';
import { errorResult, successResult, type MetaSource } from './toolEnvelope.js';
import { checkInput, echoableRequestId, type ParsedInput } from './inputChecks.js';
import { planOperation } from './operations.js';
import { progressForwarder } from './progress.js';
import { shapeFailure, shapeSuccess } from './results.js';
import { runSubscribe, type RoutedOutcome } from '../subscriptions.js';
import { findServedTool, isToolAllowed } from './toolList.js';

/** The request context the SDK hands a handler. */
export type HandlerExtra = ServerContext;

/** What the `tools/call` handler works with. */
export interface CallToolDeps {
  hub: HubPort;
  config: ServerConfig;
  logger: Logger;
  /** Finds each call's attachment: the connection's, or a stateless client's handle. */
  scope: AttachmentScope;
  /** The client's name as the hub records it (read per request: a 2026 client sends it with each). */
  clientName: (extra: HandlerExtra) => string;
  served: ReadonlySet<ToolName>;
  relayLimits: RelayLimits;
}

/** Sends the validated request to the page and returns who answered and how. */
async function execute(
  parsed: ParsedInput,
  deps: CallToolDeps,
  scope: CallScope,
  request: CallToolRequest,
  extra: HandlerExtra,
): Promise<RoutedOutcome> {
  const handle = await scope.attachment.ready();
  const onProgress = progressForwarder(
    { progressToken: request.params._meta?.progressToken, sendNotification: extra.mcpReq.notify },
    deps.logger,
  );
  const send = (sessionId: string, op: Operation): Promise<HubOutcome> =>
    deps.hub.request(handle.attachmentId, sessionId, op, {
      adapter: deps.config.adapter,
      limits: deps.relayLimits,
      deadlineMs: deps.config.limits.callDeadlineMs,
      signal: extra.mcpReq.signal,
      ...(onProgress ? { onProgress } : {}),
    });
  if (parsed.name === 'tradescript_subscribe') return runSubscribe(parsed.input, scope.router, send);
  const plan = planOperation(parsed, () => scope.attachment.nextOperationId());
  return { sessionId: plan.sessionId, outcome: await send(plan.sessionId, plan.op) };
}

/** One tool run: its result, its error code (null on success) and the session it named. */
interface ToolRun {
  result: CallToolResult;
  code: ErrorObject['code'] | null;
  sessionId: string | null;
  /** The attachment it ran under, once known (for the log line). */
  attachmentId?: string | null;
}

/** Checks the page's answer and builds the envelope from it. */
function answer(parsed: ParsedInput, routed: RoutedOutcome, limits: Limits, base: MetaSource): ToolRun {
  const { outcome } = routed;
  // An id the server does not know is neither echoed nor logged (SPEC §11): meta.sessionId is null.
  const unknown = !outcome.ok && outcome.error.code === 'session_not_found';
  const sessionId = unknown ? null : routed.sessionId;
  const meta: MetaSource = { ...base, sessionId, environment: outcome.environment };
  const calls = parsed.name === 'tradescript_batch' ? parsed.input.calls.length : 0;
  const shaped = outcome.ok
    ? shapeSuccess(parsed.name, outcome, limits, calls)
    : { ok: false as const, error: shapeFailure(outcome.error) };
  if (shaped.ok)
    return { result: successResult(shaped.data, meta, shaped.images, shaped.dataJson), code: null, sessionId };
  return { result: errorResult(shaped.error, meta), code: shaped.error.code, sessionId };
}

/**
 * Takes the `attachment` argument out of a stateless request's arguments (the
 * rest is checked as the tool's own input); a connection's tools do not take
 * one, so there it stays and is refused as an unknown field.
 */
function splitHandle(args: unknown, takesHandle: boolean): { args: unknown; handle?: string } | { error: ErrorObject } {
  if (!takesHandle || typeof args !== 'object' || args === null || Array.isArray(args)) return { args };
  if (!Object.hasOwn(args, ATTACHMENT_ARGUMENT)) return { args };
  const { [ATTACHMENT_ARGUMENT]: handle, ...rest } = args as Record<string, unknown>;
  const checked = AttachmentHandleSchema.safeParse(handle);
  if (checked.success) return { args: rest, handle: checked.data };
  const issue = {
    path: [ATTACHMENT_ARGUMENT],
    code: 'invalid_type',
    message: 'Expected the attachment handle string from meta.attachment of your last result.',
  };
  return {
    error: makeError('invalid_input', 'Fix the attachment argument and call again.', { validation_errors: [issue] }),
  };
}

async function runTool(
  name: ToolName,
  rawArgs: unknown,
  requestId: string | undefined,
  deps: CallToolDeps,
  request: CallToolRequest,
  extra: HandlerExtra,
): Promise<ToolRun> {
  const base: MetaSource = { sessionId: null, environment: null, requestId };
  const local = (error: ErrorObject, sessionId: string | null = null): ToolRun => ({
    result: errorResult(error, { ...base, sessionId }),
    code: error.code,
    sessionId,
  });
  if (!isToolAllowed(deps.config.toolAllowlist, name)) {
    const message = `${name} is turned off for this server (--tool-allowlist); use the tools listed by tools/list.`;
    return local(makeError('tool_not_available', message));
  }
  const split = splitHandle(rawArgs, deps.scope.takesHandle);
  if ('error' in split) return local(split.error);
  const checked = checkInput(name, split.args, deps.config.limits);
  if (!checked.ok) return local(checked.error);
  let scope: CallScope | ErrorObject;
  try {
    scope = await deps.scope.forCall(split.handle, deps.clientName(extra));
  } catch {
    scope = makeError('internal_error', HUB_UNREACHABLE);
  }
  // Without the hub nothing says whether the named session exists: it is not echoed.
  if ('code' in scope) return local(scope);
  if (scope.handle !== undefined) base.attachment = scope.handle;
  try {
    const routed = await execute(checked.parsed, deps, scope, request, extra);
    const { result, code, sessionId } = answer(checked.parsed, routed, deps.config.limits, base);
    // Written out, not `{ ...answer(…), attachmentId }`: on Node 20's V8 a spread followed by a new key
    // gives every run a hidden class of its own, and the run outlived its call (issue 15).
    return { result, code, sessionId, attachmentId: scope.attachment.id };
  } catch {
    return local(makeError('internal_error', HUB_UNREACHABLE));
  } finally {
    scope.release();
  }
}

const HUB_UNREACHABLE = 'The server could not reach its hub; restart the MCP server and re-read context.';

/** Creates the `tools/call` handler of one connection. */
export function createCallToolHandler(deps: CallToolDeps) {
  return async (request: CallToolRequest, extra: HandlerExtra): Promise<CallToolResult> => {
    const tool = findServedTool(deps.served, request.params.name);
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'Unknown tool: call tools/list and use one of the tools it lists.',
      );
    }
    const startedAt = Date.now();
    const args = request.params.arguments ?? {};
    const requestId = echoableRequestId(tool.name, args);
    const { result, code, sessionId, attachmentId } = await runTool(tool.name, args, requestId, deps, request, extra);
    const fields = {
      tool: tool.name,
      attachmentId: attachmentId ?? null,
      sessionId,
      requestId,
      code,
      durationMs: Date.now() - startedAt,
    };
    if (code === 'internal_error') deps.logger.warn('tool failed', fields);
    else if (code === null) deps.logger.debug('tool ok', fields);
    else deps.logger.info('tool error', fields);
    return result;
  };
}

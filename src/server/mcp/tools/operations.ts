/**
 * Turns validated tool input into the operation the page receives (SPEC §3, §5).
 * Every call gets its operation id here: the caller's `context.operationId`, or
 * an attachment-unique generated one, so a call lost with its socket keeps its
 * identity.
 */
import type { BatchCall, CallInput, Operation, RelayCall, SnapshotInput } from '../../../protocol/index.js';
import type { ParsedInput } from './inputChecks.js';

/** One operation for one session. */
export interface OperationPlan {
  sessionId: string;
  op: Operation;
}

/** The fields of one call, whether from `tradescript_call` or a batch entry. */
type CallFields = Omit<CallInput, 'sessionId'> | BatchCall;

/** One call as the page receives it; `context.origin` is checked by the schema and not forwarded. */
export function relayCall(call: CallFields, nextOperationId: () => string): RelayCall {
  const callerId = call.context?.operationId;
  const relay: RelayCall = {
    target: call.target,
    controlId: call.controlId,
    args: call.args,
    operationId: callerId ?? nextOperationId(),
    callerOperationId: callerId !== undefined,
  };
  if (call.expectedRevisions !== undefined) relay.expectedRevisions = call.expectedRevisions;
  if (call.requestId !== undefined) relay.requestId = call.requestId;
  return relay;
}

function snapshotOperation(input: SnapshotInput): Operation {
  const op: Extract<Operation, { kind: 'snapshot' }> = { kind: 'snapshot', target: input.target, format: input.format };
  if (input.maxWidth !== undefined) op.maxWidth = input.maxWidth;
  if (input.maxHeight !== undefined) op.maxHeight = input.maxHeight;
  return op;
}

/**
 * The plan for every tool routed by its own `sessionId`. Subscribe actions
 * after `start` are routed by subscription (see subscriptions.ts).
 */
export function planOperation(
  parsed: Exclude<ParsedInput, { name: 'tradescript_subscribe' }>,
  nextOperationId: () => string,
): OperationPlan {
  switch (parsed.name) {
    case 'tradescript_get_context':
      return { sessionId: parsed.input.sessionId, op: { kind: 'context', target: parsed.input.target } };
    case 'tradescript_list_controls': {
      const { sessionId, ...input } = parsed.input;
      return { sessionId, op: { kind: 'listControls', input } };
    }
    case 'tradescript_call': {
      const { sessionId, ...call } = parsed.input;
      return { sessionId, op: { kind: 'call', call: relayCall(call, nextOperationId) } };
    }
    case 'tradescript_batch': {
      const calls = parsed.input.calls.map((call) => relayCall(call, nextOperationId));
      return { sessionId: parsed.input.sessionId, op: { kind: 'batch', calls, stopOnError: parsed.input.stopOnError } };
    }
    case 'tradescript_snapshot':
      return { sessionId: parsed.input.sessionId, op: snapshotOperation(parsed.input) };
  }
}

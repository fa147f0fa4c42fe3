/**
 * What a request resolves to when its answer never comes (SPEC §5, §9): a read
 * is `transport_error` (retry after backoff); a dispatched mutation is
 * `uncertain_execution` with a receipt naming its operation id, never replayed;
 * a batch is one outcome per call, each rejected accordingly.
 */
import {
  makeError,
  type BatchData,
  type CatalogDocument,
  type Environment,
  type ErrorObject,
  type ErrorReceipt,
  type Operation,
  type RelayCall,
} from '../../../protocol/index.js';
import type { HubOutcome } from '../hubPort.js';

/**
 * Why an answer never came (`link`: a front's link to the hub process dropped;
 * in cluster mode `node`: the node holding the tab's socket went away, `store`:
 * this node lost Redis, which carries the answer).
 */
export type LossCause = 'socket' | 'deadline' | 'session-closed' | 'shutdown' | 'link' | 'node' | 'store';

/** What is known about the lost request. */
export interface LossContext {
  op: Operation;
  /** True when a control may change state (see {@link isMutation}). */
  mutates: (controlId: string) => boolean;
  cause: LossCause;
  /** Epoch ms when the request frame was sent. */
  dispatchedAt: number;
  now: number;
  environment: Environment | null;
}

/**
 * True when the catalog says the control may change state. A control the
 * catalog does not know is treated as a mutation: an unknown outcome is
 * reported as uncertain rather than guessed safe.
 */
export function isMutation(controlId: string, catalog: CatalogDocument): boolean {
  return catalog.controls.find((c) => c.controlId === controlId)?.mutation ?? true;
}

/** True when the operation contains a call that may change state. */
export function containsMutation(op: Operation, catalog: CatalogDocument): boolean {
  if (op.kind === 'call') return isMutation(op.call.controlId, catalog);
  if (op.kind === 'batch') return op.calls.some((c) => isMutation(c.controlId, catalog));
  return false;
}

const READ_LOST: Record<LossCause, string> = {
  socket:
    'The terminal tab disconnected before it answered. Retry after a short wait; if it persists, read tradescript://sessions.',
  deadline:
    'The terminal did not answer within the call deadline. Retry after a short wait, asking for less if the request was large.',
  'session-closed':
    'The terminal tab closed its session before it answered. Read tradescript://sessions for the current sessions.',
  shutdown: 'The server is shutting down; nothing was answered. Retry once it is back.',
  link: 'The connection to the TradeScript hub process dropped before the terminal answered. Retry after a short wait.',
  node: 'The server node holding the terminal tab went away before it answered; the tab reconnects to another node. Retry after a short wait.',
  store: "This server node lost the cluster's store (Redis) before the terminal answered. Retry after a short wait.",
};

const MUTATION_LOST: Record<LossCause, string> = {
  socket:
    'The terminal tab disconnected after the call was sent: it may or may not have run, and it will not be re-sent.',
  deadline: 'The terminal did not answer within the call deadline after the call was sent: it may or may not have run.',
  'session-closed': 'The terminal tab closed its session after the call was sent: it may or may not have run.',
  shutdown: 'The server shut down after the call was sent: it may or may not have run.',
  link: 'The connection to the TradeScript hub process dropped after the call was sent: it may or may not have run, and it will not be re-sent.',
  node: 'The server node holding the terminal tab went away after the call was sent: it may or may not have run, and it will not be re-sent.',
  store:
    "This server node lost the cluster's store (Redis) after the call was sent: it may or may not have run, and it will not be re-sent.",
};

const RECONCILE = ' Reconcile with reads (context, the orders or alerts list) before deciding on a new operation.';

function readLost(cause: LossCause): ErrorObject {
  return makeError('transport_error', READ_LOST[cause]);
}

/** The receipt of a call the hub sent but cannot read an answer to: identity only, no revisions known. */
export function sentCallReceipt(call: RelayCall, dispatchedAt: number, now: number): ErrorReceipt {
  return {
    operationId: call.operationId,
    origin: 'mcp',
    controlId: call.controlId,
    target: call.target,
    mutation: true,
    revisionsBefore: {},
    revisionsAfter: {},
    durationMs: Math.max(0, now - dispatchedAt),
    dispatchedAt: new Date(dispatchedAt).toISOString(),
  };
}

function mutationLost(call: RelayCall, ctx: LossContext): ErrorObject {
  return makeError('uncertain_execution', MUTATION_LOST[ctx.cause] + RECONCILE, {
    details: { receipt: sentCallReceipt(call, ctx.dispatchedAt, ctx.now) },
  });
}

function callLost(call: RelayCall, ctx: LossContext): ErrorObject {
  return ctx.mutates(call.controlId) ? mutationLost(call, ctx) : readLost(ctx.cause);
}

/** The outcome of a request whose answer never came. */
export function lostOutcome(ctx: LossContext): HubOutcome {
  const { op, environment } = ctx;
  if (op.kind === 'batch') {
    const data: BatchData = {
      atomic: false,
      outcomes: op.calls.map((call, index) => ({ index, status: 'rejected', error: callLost(call, ctx) })),
    };
    return { ok: true, data, environment };
  }
  const error = op.kind === 'call' ? callLost(op.call, ctx) : readLost(ctx.cause);
  return { ok: false, error, environment };
}

/** The outcome of a read the MCP client cancelled before the page answered. */
export function cancelledOutcome(environment: Environment | null): HubOutcome {
  return {
    ok: false,
    error: makeError(
      'transport_error',
      'The request was cancelled before the terminal answered; nothing was returned.',
    ),
    environment,
  };
}

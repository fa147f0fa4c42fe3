/**
 * From what a control threw to an envelope error (SPEC §4, §5). For a
 * mutation this also decides what the ledger records: a definite rejection
 * (returned on reuse), a definite refusal before acceptance (reuse tries
 * again), or an uncertain outcome (anything else after dispatch).
 */
import {
  DEFAULT_LIMITS,
  QuoteDriftSchema,
  makeError,
  type AccessClass,
  type ErrorCode,
  type ErrorDetails,
  type ErrorExtras,
  type ErrorObject,
  type ErrorReceipt,
  type Retry,
} from '../../protocol/index.js';
import { isControlFailure, type FailureInfo, type FailureKind } from './failures.js';
import { carriableResult } from '../dispatch/resultLimits.js';
import { redactBrokerText, safeAuthUrl, safeBrokerCode, safeRequestId, safeStatusCode } from '../dispatch/redact.js';

/** What the ledger records for a failed mutation. */
export type FailureState = 'rejected' | 'refused' | 'uncertain';

/** An envelope error and, for a mutation, its ledger state. */
export interface MappedFailure {
  error: ErrorObject;
  state: FailureState;
}

/** What the mapping depends on. */
export interface FailureContext {
  mutation: boolean;
  accessClass: AccessClass;
  /** The dispatch evidence, for `details.receipt`. */
  receipt: ErrorReceipt;
}

const READ_RETRY_KINDS: readonly FailureKind[] = [
  'service-unavailable',
  'rate-limited',
  'transport-error',
  'invalid-broker-response',
];

const REFUSAL_KINDS: readonly FailureKind[] = [
  'authentication-required',
  'authorization-expired',
  'authentication-failed',
  'rate-limited',
];

const DEFAULT_MESSAGES: Partial<Record<ErrorCode, string>> = {
  broker_rejection:
    'The broker rejected this request; nothing was executed. Read broker_message; do not resend it unchanged.',
  authentication_required: 'The broker session expired: the person must sign in again (see auth_url), then retry.',
  authorization_expired: 'The broker authorization expired: the person must renew it, then retry.',
  authentication_failed: 'The broker refused the credentials: the person must sign in again, then retry.',
  rate_limited: 'The broker is rate-limiting requests; wait before trying again.',
  service_unavailable: 'The broker is temporarily unavailable; try again later.',
  invalid_broker_response: 'The broker answered with something unreadable; try again later.',
  transport_error: 'The broker could not be reached; try again later.',
  not_found: 'The broker does not know what was asked for; re-read the current state.',
  control_failed: 'The control failed and changed nothing; re-read the current state before deciding what to do.',
  uncertain_execution:
    'The outcome is unknown: the control may have acted. Reconcile with explicit reads (orders, blotter) before anything else; only if nothing happened, send a new operation.',
};

/** True when a read may be retried automatically after this failure (SPEC §5). */
export function isRetryableReadFailure(thrown: unknown): boolean {
  return isControlFailure(thrown) && READ_RETRY_KINDS.includes(thrown.kind);
}

function brokerExtras(info: FailureInfo): ErrorExtras {
  return {
    status_code: safeStatusCode(info.statusCode),
    broker_code: safeBrokerCode(info.brokerCode),
    broker_message: redactBrokerText(info.brokerMessage),
    request_id: safeRequestId(info.requestId),
    auth_url: safeAuthUrl(info.authUrl),
  };
}

function detailsOf(info: FailureInfo, receipt: ErrorReceipt | undefined): ErrorDetails | null {
  const details: ErrorDetails = {};
  if (receipt) details.receipt = receipt;
  const result = carriableResult(info.result, DEFAULT_LIMITS);
  if (result !== undefined) details.result = result;
  const quote = QuoteDriftSchema.safeParse(info.quote);
  if (quote.success) details.quote = quote.data;
  return Object.keys(details).length > 0 ? details : null;
}

function build(code: ErrorCode, info: FailureInfo, receipt: ErrorReceipt | undefined, retry?: Retry): ErrorObject {
  const message = redactBrokerText(info.message) ?? DEFAULT_MESSAGES[code] ?? 'The call failed.';
  const extras: ErrorExtras = { ...brokerExtras(info), details: detailsOf(info, receipt) };
  if (retry) extras.retry = retry;
  return makeError(code, message, extras);
}

function codeOf(kind: FailureKind): ErrorCode {
  return kind === 'definite-failure' ? 'control_failed' : (kind.replace(/-/g, '_') as ErrorCode);
}

function rejectionRetry(info: FailureInfo, accessClass: AccessClass): Retry {
  if (accessClass !== 'trade') return 'after_correction';
  return info.partial ? 'after_reconcile' : 'after_user_action';
}

/** What the ledger records after a dispatched mutation threw this (SPEC §5). */
export function mutationFailureState(thrown: unknown): FailureState {
  if (!isControlFailure(thrown)) return 'uncertain';
  if (thrown.kind === 'broker-rejection' || thrown.kind === 'definite-failure') return 'rejected';
  return REFUSAL_KINDS.includes(thrown.kind) ? 'refused' : 'uncertain';
}

/** Maps a failure of a read (`mutation: false`); nothing is recorded for reads. */
function mapReadFailure(thrown: unknown, ctx: FailureContext): ErrorObject {
  if (!isControlFailure(thrown)) return build('control_failed', {}, ctx.receipt);
  const { kind, info } = thrown;
  if (kind === 'broker-rejection')
    return build('broker_rejection', info, undefined, rejectionRetry(info, ctx.accessClass));
  if (kind === 'definite-failure') return build('control_failed', info, ctx.receipt);
  return build(codeOf(kind), info, undefined);
}

/** Maps a failure of a dispatched mutation and says what the ledger records. */
function mapMutationFailure(thrown: unknown, ctx: FailureContext): MappedFailure {
  const state = mutationFailureState(thrown);
  if (!isControlFailure(thrown)) return { error: build('uncertain_execution', {}, ctx.receipt), state };
  const { kind, info } = thrown;
  if (kind === 'broker-rejection') {
    return { error: build('broker_rejection', info, ctx.receipt, rejectionRetry(info, ctx.accessClass)), state };
  }
  if (kind === 'definite-failure') return { error: build('control_failed', info, ctx.receipt), state };
  if (state === 'refused') return { error: build(codeOf(kind), info, ctx.receipt, 'after_user_action'), state };
  // The control's own message would speak for a definite failure; the outcome is not definite.
  return { error: build('uncertain_execution', { ...info, message: undefined }, ctx.receipt), state };
}

/** Maps whatever a control threw (typed failure or plain exception) to an envelope error. */
export function mapFailure(thrown: unknown, ctx: FailureContext): MappedFailure {
  if (ctx.mutation) return mapMutationFailure(thrown, ctx);
  return { error: mapReadFailure(thrown, ctx), state: 'rejected' };
}

/** `uncertain_execution` with the dispatch evidence (a lost answer, a deadline, a malformed result). */
export function uncertainExecution(receipt: ErrorReceipt, message?: string): ErrorObject {
  return build('uncertain_execution', { message }, receipt);
}

/** `control_failed` with the dispatch evidence. */
export function controlFailed(receipt: ErrorReceipt | undefined, message?: string): ErrorObject {
  return build('control_failed', { message }, receipt);
}

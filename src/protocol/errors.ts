/**
 * Error codes, their retry guidance and the envelope `error` object (SPEC §4).
 * Errors are values: build them with {@link makeError}; branch on `code`, never
 * on message text.
 */
import * as z from 'zod/mini';
import { REPORTED_LIMITS, type ReportedLimit } from './limits.js';
import { TargetSchema } from './target.js';

/** What the agent may do next. */
export const RetrySchema = z.enum([
  'never',
  'after_correction',
  'after_reread',
  'after_reconcile',
  'after_user_action',
  'after_backoff',
]);
/** What the agent may do next. */
export type Retry = z.infer<typeof RetrySchema>;

/** Every stable error code with its default retry guidance. */
export const ERROR_RETRY = {
  invalid_input: 'after_correction',
  request_too_large: 'after_correction',
  limit_exceeded: 'after_correction',
  tool_not_available: 'never',
  execution_disabled: 'never',
  control_unavailable: 'after_user_action',
  execution_declined: 'after_user_action',
  operation_id_required: 'after_correction',
  operation_id_conflict: 'after_correction',
  session_not_found: 'after_reread',
  target_not_found: 'after_reread',
  control_not_found: 'after_reread',
  subscription_not_found: 'after_reread',
  session_closed: 'after_user_action',
  target_not_renderable: 'after_correction',
  revision_conflict: 'after_reread',
  authentication_required: 'after_user_action',
  authorization_expired: 'after_user_action',
  authentication_failed: 'after_user_action',
  broker_rejection: 'after_correction',
  rate_limited: 'after_backoff',
  service_unavailable: 'after_backoff',
  invalid_broker_response: 'after_backoff',
  transport_error: 'after_backoff',
  not_found: 'after_reread',
  uncertain_execution: 'after_reconcile',
  control_failed: 'after_reread',
  internal_error: 'never',
} as const satisfies Record<string, Retry>;

/** A stable error code. */
export type ErrorCode = keyof typeof ERROR_RETRY;

/** Every stable error code. */
export const ERROR_CODES = Object.keys(ERROR_RETRY) as [ErrorCode, ...ErrorCode[]];

/** A stable error code, as a schema. */
export const ErrorCodeSchema = z.enum(ERROR_CODES);

/** One diagnostic of `invalid_input` (SPEC §4). */
export const ValidationIssueSchema = z.strictObject({
  path: z.array(z.union([z.string(), z.int().check(z.nonnegative())])).check(z.maxLength(16)),
  code: z.string(),
  message: z.string().check(z.maxLength(256)),
});
/** One diagnostic of `invalid_input`. */
export type ValidationIssue = z.infer<typeof ValidationIssueSchema>;

/** Revision values per domain, e.g. `{ viewport: 12 }`. */
export const RevisionsSchema = z.record(z.string(), z.int().check(z.nonnegative()));
/** Revision values per domain. */
export type Revisions = z.infer<typeof RevisionsSchema>;

/**
 * Why a mutation's receipt carries `result: null` (SPEC §6): the result did
 * not fit `resultBytes`, or broke `jsonDepth` or `stringLength`. The mutation
 * happened; its identity, revisions and evidence stay.
 */
export const ResultOmittedSchema = z.strictObject({
  reason: z.literal('result-too-large'),
  limit: z.enum(['resultBytes', 'jsonDepth', 'stringLength']),
});
/** Why a receipt's result was left out. */
export type ResultOmitted = z.infer<typeof ResultOmittedSchema>;

/** The identity and evidence every receipt carries (SPEC §3): one list, used by both receipt shapes. */
export const ReceiptEvidenceShape = {
  operationId: z.string(),
  origin: z.literal('mcp'),
  controlId: z.string(),
  target: TargetSchema,
  mutation: z.boolean(),
  revisionsBefore: RevisionsSchema,
  revisionsAfter: RevisionsSchema,
  durationMs: z.number().check(z.nonnegative()),
  resultOmitted: z.optional(ResultOmittedSchema),
  reconciled: z.optional(z.boolean()),
};

/** The identity and evidence of a dispatched call, without its result (`details.receipt`). */
export const ErrorReceiptSchema = z.strictObject({ ...ReceiptEvidenceShape, dispatchedAt: z.string() });
/** `details.receipt`. */
export type ErrorReceipt = z.infer<typeof ErrorReceiptSchema>;

/** The policy layer that denied something (SPEC §5). */
export const PolicyLayerSchema = z.enum([
  'adapter-maximum',
  'not-mounted',
  'surface-policy',
  'attachment-grant',
  'execution-environment',
]);
/** The policy layer that denied something. */
export type PolicyLayer = z.infer<typeof PolicyLayerSchema>;

/** `details.quote` of a 409 price drift. */
export const QuoteDriftSchema = z.strictObject({
  originalPrice: z.string(),
  newPrice: z.string(),
  tolerance: z.string(),
});

/** `error.details`: only the keys SPEC §4 names. */
export const ErrorDetailsSchema = z.strictObject({
  current: z.optional(RevisionsSchema),
  reason: z.optional(z.string()),
  receipt: z.optional(ErrorReceiptSchema),
  result: z.optional(z.unknown()),
  limit: z.optional(z.enum(REPORTED_LIMITS)),
  max: z.optional(z.number()),
  quote: z.optional(QuoteDriftSchema),
});
/** `error.details`. */
export type ErrorDetails = z.infer<typeof ErrorDetailsSchema>;

/** The envelope's `error` object: every key always present. */
export const ErrorObjectSchema = z.strictObject({
  code: ErrorCodeSchema,
  message: z.string(),
  status_code: z.nullable(z.int()),
  broker_code: z.nullable(z.string()),
  broker_message: z.nullable(z.string()),
  request_id: z.nullable(z.string()),
  validation_errors: z.array(ValidationIssueSchema),
  retry: RetrySchema,
  auth_url: z.nullable(z.string()),
  details: z.nullable(ErrorDetailsSchema),
});
/** The envelope's `error` object. */
export type ErrorObject = z.infer<typeof ErrorObjectSchema>;

/** Optional parts of an error; everything left out takes its empty value. */
export type ErrorExtras = Partial<Omit<ErrorObject, 'code' | 'message'>>;

/**
 * Builds a complete error object: every key present, `retry` defaulting to the
 * code's guidance.
 */
export function makeError(code: ErrorCode, message: string, extras: ErrorExtras = {}): ErrorObject {
  return {
    code,
    message,
    status_code: extras.status_code ?? null,
    broker_code: extras.broker_code ?? null,
    broker_message: extras.broker_message ?? null,
    request_id: extras.request_id ?? null,
    validation_errors: extras.validation_errors ?? [],
    retry: extras.retry ?? ERROR_RETRY[code],
    auth_url: extras.auth_url ?? null,
    details: extras.details ?? null,
  };
}

/**
 * An error thrown across our own code, carrying a complete error object.
 * Catch sites turn it back into the envelope with `.error`.
 */
export class TradescriptError extends Error {
  /** The envelope error this exception stands for. */
  readonly error: ErrorObject;
  constructor(error: ErrorObject) {
    super(error.message);
    this.name = 'TradescriptError';
    this.error = error;
  }
}

/** Throws a {@link TradescriptError} built by {@link makeError}. */
export function fail(code: ErrorCode, message: string, extras: ErrorExtras = {}): never {
  throw new TradescriptError(makeError(code, message, extras));
}

const ASK_FOR_LESS = 'ask for less (filters, a smaller limit, a narrower target).';
const SMALLER_IMAGE = 'ask for a smaller maxWidth/maxHeight.';

/** What a caller does instead when it meets a limit (SPEC §6), the next step of every `limit_exceeded`. */
const LIMIT_NEXT_STEPS: Record<ReportedLimit, string> = {
  batchCalls: 'split the calls into several batches.',
  callArgs: 'pass at most that many positional arguments per call.',
  resultBytes: ASK_FOR_LESS,
  snapshotPixels: SMALLER_IMAGE,
  snapshotBytes: SMALLER_IMAGE,
  subscriptionsPerSession: 'stop one of yours first (tombstones do not count).',
  bindingsPerSubscription: 'start fewer bindings.',
  eventsPerPoll: 'poll with a smaller limit and page on with afterSequence.',
  jsonDepth: ASK_FOR_LESS,
  stringLength: ASK_FOR_LESS,
  catalogBytes: 'declare fewer or smaller controls and channels in the session.',
  sessionsPerHost: "close one of this host's tabs first.",
};

/**
 * `limit_exceeded` naming the limit and its value (SPEC §6), the one builder both
 * sides of every seam use: the server for requests and answers, the page for
 * results, batches and subscriptions. `nextStep` replaces the limit's usual next
 * step where the caller knows better (a request nested too deeply is fixed by the
 * caller's arguments, not by asking for less).
 */
export function limitExceeded(
  limit: ReportedLimit,
  max: number,
  nextStep: string = LIMIT_NEXT_STEPS[limit],
): ErrorObject {
  return makeError('limit_exceeded', `Over the ${limit} limit (${max}): ${nextStep}`, { details: { limit, max } });
}

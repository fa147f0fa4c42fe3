/**
 * `tradescript_subscribe` (SPEC §7): start, poll, stop, list.
 */
import * as z from 'zod/mini';
import { IdSchema, TargetSchema } from '../target.js';
import { SessionIdSchema, TargetFieldSchema } from './common.js';

/** One binding of a subscription start. */
export const BindingInputSchema = z.strictObject({
  channelId: IdSchema.check(z.describe('Channel id from availableSubscriptions in context.')),
  bindingId: IdSchema.check(z.describe('Your name for this binding, unique in the subscription.')),
  options: z.optional(z.unknown()).check(z.describe("Options matching the channel's optionsContract.")),
});

/** `start`. */
export const SubscribeStartSchema = z.strictObject({
  action: z.literal('start'),
  sessionId: SessionIdSchema,
  target: TargetFieldSchema,
  bindings: z.array(BindingInputSchema).check(z.minLength(1)),
});

/** `poll`. */
export const SubscribePollSchema = z.strictObject({
  action: z.literal('poll'),
  subscriptionId: IdSchema,
  afterSequence: z.optional(z.int().check(z.nonnegative())),
  limit: z.optional(z.int().check(z.gte(1))),
});

/** `stop`. */
export const SubscribeStopSchema = z.strictObject({ action: z.literal('stop'), subscriptionId: IdSchema });

/** `list`. */
export const SubscribeListSchema = z.strictObject({
  action: z.literal('list'),
  sessionId: z.optional(SessionIdSchema),
});

/** Input: one schema with an `action` discriminator. */
export const SubscribeInputSchema = z.discriminatedUnion('action', [
  SubscribeStartSchema,
  SubscribePollSchema,
  SubscribeStopSchema,
  SubscribeListSchema,
]);
/** Input. */
export type SubscribeInput = z.infer<typeof SubscribeInputSchema>;

/**
 * The flat object published in `tools/list`: clients that refuse a top-level
 * `oneOf` still see every action and field. The server validates against
 * {@link SubscribeInputSchema}, which is strict per action.
 */
export const SubscribePublishedInputSchema = z.object({
  action: z
    .enum(['start', 'poll', 'stop', 'list'])
    .check(
      z.describe(
        'start {sessionId, target, bindings} | poll {subscriptionId, afterSequence?, limit?} | stop {subscriptionId} | list {sessionId?}',
      ),
    ),
  sessionId: z.optional(SessionIdSchema).check(z.describe('start (required), list (optional filter).')),
  target: z.optional(TargetFieldSchema).check(z.describe('start: the explicit target whose channels to bind.')),
  bindings: z
    .optional(z.array(BindingInputSchema))
    .check(z.describe('start: one or more channel bindings (at most 32).')),
  subscriptionId: z.optional(IdSchema).check(z.describe('poll and stop: the id returned by start.')),
  afterSequence: z
    .optional(z.int().check(z.nonnegative()))
    .check(z.describe('poll: return events after this sequence (omit to start at the oldest retained event).')),
  limit: z.optional(z.int().check(z.gte(1))).check(z.describe('poll: at most this many events (1-100, default 100).')),
});

/** Why a subscription stopped. */
export const StopReasonSchema = z.enum([
  'stopped',
  'target-unregistered',
  'attachment-detached',
  'session-closed',
  'bridge-restarted',
]);
/** Why a subscription stopped. */
export type StopReason = z.infer<typeof StopReasonSchema>;

/** One binding as started. */
export const BindingSchema = z.strictObject({ bindingId: z.string(), channelId: z.string() });

/** `start` data. */
export const SubscriptionStartedSchema = z.strictObject({
  subscriptionId: z.string(),
  status: z.literal('active'),
  target: TargetSchema,
  bindings: z.array(BindingSchema),
  startedAt: z.string(),
});

/** One buffered event. */
export const SubscriptionEventSchema = z.strictObject({
  sequence: z.int().check(z.positive()),
  receivedAt: z.string(),
  target: TargetSchema,
  channelId: z.string(),
  bindingId: z.string(),
  payload: z.unknown(),
});
/** One buffered event. */
export type SubscriptionEvent = z.infer<typeof SubscriptionEventSchema>;

/** `poll` data. */
export const SubscriptionPollSchema = z.strictObject({
  subscriptionId: z.string(),
  status: z.enum(['active', 'stopped']),
  events: z.array(SubscriptionEventSchema),
  lastSequence: z.int().check(z.nonnegative()),
  droppedBeforeSequence: z
    .nullable(z.int().check(z.positive()))
    .check(
      z.describe(
        'Every event below this sequence, after afterSequence, that this poll did not return was dropped; null when none was.',
      ),
    ),
  droppedCount: z
    .int()
    .check(z.nonnegative(), z.describe('Exactly how many events below droppedBeforeSequence were dropped.')),
  stoppedAt: z.optional(z.string()),
  reason: z.optional(StopReasonSchema),
});
/** `poll` data. */
export type SubscriptionPoll = z.infer<typeof SubscriptionPollSchema>;

/** One subscription as `list` and `stop` show it. */
export const SubscriptionSummarySchema = z.strictObject({
  subscriptionId: z.string(),
  status: z.enum(['active', 'stopped']),
  target: TargetSchema,
  bindings: z.array(BindingSchema),
  lastSequence: z.int().check(z.nonnegative()),
  droppedCount: z.int().check(z.nonnegative()),
  startedAt: z.string(),
  stoppedAt: z.optional(z.string()),
  reason: z.optional(StopReasonSchema),
});
/** One subscription summary. */
export type SubscriptionSummary = z.infer<typeof SubscriptionSummarySchema>;

/** `list` data. */
export const SubscriptionListSchema = z.strictObject({ subscriptions: z.array(SubscriptionSummarySchema) });

/** Output data of any action. */
export const SubscribeDataSchema = z.union([
  SubscriptionStartedSchema,
  SubscriptionPollSchema,
  SubscriptionSummarySchema,
  SubscriptionListSchema,
]);

/** Tool definition. */
export const subscribeTool = {
  name: 'tradescript_subscribe',
  title: 'Watch terminal events',
  description:
    'Bounded event subscriptions on one explicit target. action "start" binds channels from ' +
    'availableSubscriptions in context; "poll" reads events after a sequence (polls consume nothing); ' +
    '"stop" ends one; "list" shows yours. droppedBeforeSequence/droppedCount mark gaps: a gap is never ' +
    'complete history, so re-read context when you see one. Not a lossless market-data feed.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: SubscribeInputSchema,
  published: SubscribePublishedInputSchema,
  data: SubscribeDataSchema,
} as const;

/**
 * `tradescript_subscribe` (SPEC §7): start, poll, stop, list.
 */
import { z } from 'zod';
import { IdSchema, TargetSchema } from '../target.js';
import { SessionIdSchema, TargetFieldSchema } from './common.js';

/** One binding of a subscription start. */
export const BindingInputSchema = z
  .object({
    channelId: IdSchema.describe('Channel id from availableSubscriptions in context.'),
    bindingId: IdSchema.describe('Your name for this binding, unique in the subscription.'),
    options: z.unknown().optional().describe("Options matching the channel's optionsContract."),
  })
  .strict();

/** `start`. */
export const SubscribeStartSchema = z
  .object({
    action: z.literal('start'),
    sessionId: SessionIdSchema,
    target: TargetFieldSchema,
    bindings: z.array(BindingInputSchema).min(1),
  })
  .strict();

/** `poll`. */
export const SubscribePollSchema = z
  .object({
    action: z.literal('poll'),
    subscriptionId: IdSchema,
    afterSequence: z.number().int().nonnegative().optional(),
    limit: z.number().int().min(1).optional(),
  })
  .strict();

/** `stop`. */
export const SubscribeStopSchema = z.object({ action: z.literal('stop'), subscriptionId: IdSchema }).strict();

/** `list`. */
export const SubscribeListSchema = z
  .object({ action: z.literal('list'), sessionId: SessionIdSchema.optional() })
  .strict();

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
    .describe(
      'start {sessionId, target, bindings} | poll {subscriptionId, afterSequence?, limit?} | stop {subscriptionId} | list {sessionId?}',
    ),
  sessionId: SessionIdSchema.optional().describe('start (required), list (optional filter).'),
  target: TargetFieldSchema.optional().describe('start: the explicit target whose channels to bind.'),
  bindings: z.array(BindingInputSchema).optional().describe('start: one or more channel bindings (at most 32).'),
  subscriptionId: IdSchema.optional().describe('poll and stop: the id returned by start.'),
  afterSequence: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('poll: return events after this sequence (omit to start at the oldest retained event).'),
  limit: z.number().int().min(1).optional().describe('poll: at most this many events (1-100, default 100).'),
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
export const BindingSchema = z.object({ bindingId: z.string(), channelId: z.string() }).strict();

/** `start` data. */
export const SubscriptionStartedSchema = z
  .object({
    subscriptionId: z.string(),
    status: z.literal('active'),
    target: TargetSchema,
    bindings: z.array(BindingSchema),
    startedAt: z.string(),
  })
  .strict();

/** One buffered event. */
export const SubscriptionEventSchema = z
  .object({
    sequence: z.number().int().positive(),
    receivedAt: z.string(),
    target: TargetSchema,
    channelId: z.string(),
    bindingId: z.string(),
    payload: z.unknown(),
  })
  .strict();
/** One buffered event. */
export type SubscriptionEvent = z.infer<typeof SubscriptionEventSchema>;

/** `poll` data. */
export const SubscriptionPollSchema = z
  .object({
    subscriptionId: z.string(),
    status: z.enum(['active', 'stopped']),
    events: z.array(SubscriptionEventSchema),
    lastSequence: z.number().int().nonnegative(),
    droppedBeforeSequence: z
      .number()
      .int()
      .positive()
      .nullable()
      .describe(
        'Every event below this sequence, after afterSequence, that this poll did not return was dropped; null when none was.',
      ),
    droppedCount: z
      .number()
      .int()
      .nonnegative()
      .describe('Exactly how many events below droppedBeforeSequence were dropped.'),
    stoppedAt: z.string().optional(),
    reason: StopReasonSchema.optional(),
  })
  .strict();
/** `poll` data. */
export type SubscriptionPoll = z.infer<typeof SubscriptionPollSchema>;

/** One subscription as `list` and `stop` show it. */
export const SubscriptionSummarySchema = z
  .object({
    subscriptionId: z.string(),
    status: z.enum(['active', 'stopped']),
    target: TargetSchema,
    bindings: z.array(BindingSchema),
    lastSequence: z.number().int().nonnegative(),
    droppedCount: z.number().int().nonnegative(),
    startedAt: z.string(),
    stoppedAt: z.string().optional(),
    reason: StopReasonSchema.optional(),
  })
  .strict();
/** One subscription summary. */
export type SubscriptionSummary = z.infer<typeof SubscriptionSummarySchema>;

/** `list` data. */
export const SubscriptionListSchema = z.object({ subscriptions: z.array(SubscriptionSummarySchema) }).strict();

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

/**
 * `tradescript_get_context` (SPEC §3).
 */
import * as z from 'zod/mini';
import { ChannelDescriptorSchema } from '../descriptors.js';
import { EnvironmentSchema } from '../envelope.js';
import { RevisionsSchema } from '../errors.js';
import { AccessClassSchema } from '../policy.js';
import { TargetSchema } from '../target.js';
import { READ_ANNOTATIONS, SessionIdSchema, TargetFieldSchema } from './common.js';

/** Input. */
export const GetContextInputSchema = z.strictObject({ sessionId: SessionIdSchema, target: TargetFieldSchema });
/** Input. */
export type GetContextInput = z.infer<typeof GetContextInputSchema>;

/** One mounted surface an agent may address. */
export const AvailableTargetSchema = z.strictObject({
  target: TargetSchema,
  label: z.string(),
  controllers: z.array(z.string()),
  renderable: z.boolean(),
});
/** One mounted surface. */
export type AvailableTarget = z.infer<typeof AvailableTargetSchema>;

/** Which access applies, layer by layer. */
export const AccessSummarySchema = z.strictObject({
  grant: AccessClassSchema.check(z.describe('What the person allows MCP attachments in this session.')),
  adapterMaximum: AccessClassSchema.check(
    z.describe('What this server process allows (trade only with --enable-trading).'),
  ),
  effective: AccessClassSchema.check(z.describe('The narrower of the two: what you may do.')),
});

/** Output data. */
export const ContextDataSchema = z.strictObject({
  sessionId: z.string(),
  target: TargetSchema,
  label: z.string(),
  state: z.record(z.string(), z.unknown()),
  capabilities: z.strictObject({
    controllers: z.array(z.string()),
    renderable: z.boolean(),
    channels: z.array(z.string()),
  }),
  availableTargets: z.array(AvailableTargetSchema),
  controllerRevisions: z.record(z.string(), RevisionsSchema),
  availableSubscriptions: z.array(ChannelDescriptorSchema),
  environment: EnvironmentSchema,
  access: AccessSummarySchema,
});
/** Output data. */
export type ContextData = z.infer<typeof ContextDataSchema>;

/** Tool definition. */
export const getContextTool = {
  name: 'tradescript_get_context',
  title: 'Get terminal context',
  description:
    'Read the state of one explicit target in a paired trading-terminal session: its state, capabilities, ' +
    'availableTargets (the only valid routing list), controllerRevisions (use them as expectedRevisions), ' +
    'availableSubscriptions, the execution environment (paper or live) and your effective access. ' +
    'Start with target {"scope":"session"}; get the sessionId from the tradescript://sessions resource.',
  annotations: READ_ANNOTATIONS,
  input: GetContextInputSchema,
  data: ContextDataSchema,
} as const;

/**
 * Control and channel descriptors (SPEC §5, §7): derived by the host SDK from its
 * zod declarations, never written by hand.
 */
import * as z from 'zod/mini';
import { PolicyLayerSchema } from './errors.js';
import { AccessClassSchema, RiskSchema } from './policy.js';
import { TargetScopeSchema } from './target.js';

/** A bounded portable JSON Schema object. */
export const JsonSchemaSchema = z.record(z.string(), z.unknown());

/** One positional argument of a control. */
export const ControlArgSchema = z.strictObject({ name: z.string(), required: z.boolean(), schema: JsonSchemaSchema });

/** What a control is and what it needs. */
export const ControlDescriptorSchema = z.strictObject({
  controlId: z.string(),
  controller: z.string(),
  method: z.string(),
  /** Public TS-style signature, e.g. `setVisibleRange(range: {…}): VisibleRange`. */
  signature: z.string(),
  description: z.string(),
  args: z.array(ControlArgSchema),
  targetScopes: z.array(TargetScopeSchema),
  accessClass: AccessClassSchema,
  family: z.string(),
  permission: z.string(),
  mutation: z.boolean(),
  risk: RiskSchema,
  revisionDomains: z.array(z.string()),
  /** Which argument holds the guarded options object, or null. */
  operationOptionsIndex: z.nullable(z.int().check(z.nonnegative())),
});
/** What a control is and what it needs. */
export type ControlDescriptor = z.infer<typeof ControlDescriptorSchema>;

/** A control denied on this target, with the layer that denied it. */
export const UnavailableControlSchema = z.strictObject({
  control: z.string(),
  reason: PolicyLayerSchema,
  detail: z.optional(z.string()),
});
/** A control denied on this target. */
export type UnavailableControl = z.infer<typeof UnavailableControlSchema>;

/** A control whose source said it is unsupported without naming a layer. */
export const UnclassifiedControlSchema = z.strictObject({ control: z.string(), detail: z.optional(z.string()) });
/** A control unsupported without a reason. */
export type UnclassifiedControl = z.infer<typeof UnclassifiedControlSchema>;

/** An options or event contract of a channel. */
export const ContractSchema = z.strictObject({
  signature: z.string(),
  schema: JsonSchemaSchema,
  example: z.unknown(),
  required: z.optional(z.boolean()),
});
/** An options or event contract. */
export type Contract = z.infer<typeof ContractSchema>;

/** A subscription channel available on a target. */
export const ChannelDescriptorSchema = z.strictObject({
  channelId: z.string(),
  description: z.string(),
  optionsContract: ContractSchema,
  eventContract: ContractSchema,
});
/** A subscription channel. */
export type ChannelDescriptor = z.infer<typeof ChannelDescriptorSchema>;

/**
 * `tradescript_list_controls` (SPEC §3, §5).
 */
import * as z from 'zod/mini';
import { ControlDescriptorSchema, UnavailableControlSchema, UnclassifiedControlSchema } from '../descriptors.js';
import { AccessClassSchema } from '../policy.js';
import { TargetSchema } from '../target.js';
import { READ_ANNOTATIONS, SessionIdSchema, TargetFieldSchema } from './common.js';

/** Default rows per ledger (unavailable, unclassified). */
export const DEFAULT_UNAVAILABLE_LIMIT = 256;
/** Default controls per page. */
export const DEFAULT_CONTROLS_PAGE = 100;

/** Input. */
export const ListControlsInputSchema = z.strictObject({
  sessionId: SessionIdSchema,
  target: TargetFieldSchema,
  controller: z
    .optional(z.string().check(z.minLength(1), z.maxLength(128)))
    .check(z.describe('Only controls of this controller.')),
  accessClass: z.optional(AccessClassSchema).check(z.describe('Only controls of this access class.')),
  family: z
    .optional(z.string().check(z.minLength(1), z.maxLength(128)))
    .check(z.describe('Only controls of this policy family.')),
  permission: z
    .optional(z.string().check(z.minLength(1), z.maxLength(128)))
    .check(z.describe('Only controls with this permission label.')),
  mutation: z.optional(z.boolean()).check(z.describe('Only mutations (true) or only reads (false).')),
  cursor: z
    .optional(z.string().check(z.minLength(1), z.maxLength(256)))
    .check(z.describe('nextCursor from the previous page.')),
  limit: z.optional(z.int().check(z.gte(1), z.lte(500))).check(z.describe('Controls per page (default 100).')),
  unavailableLimit: z
    .optional(z.int().check(z.gte(1), z.lte(1000)))
    .check(z.describe('Rows per ledger of unavailable and unclassified controls (1-1000, default 256).')),
});
/** Input. */
export type ListControlsInput = z.infer<typeof ListControlsInputSchema>;

/** Output data. */
export const ListControlsDataSchema = z.strictObject({
  target: TargetSchema,
  controls: z.array(ControlDescriptorSchema),
  nextCursor: z.nullable(z.string()),
  total: z.int().check(z.nonnegative()),
  unavailableControls: z.array(UnavailableControlSchema),
  unavailableTotal: z.int().check(z.nonnegative()),
  unavailableTruncated: z.boolean(),
  unclassifiedControls: z.array(UnclassifiedControlSchema),
  unclassifiedTotal: z.int().check(z.nonnegative()),
  unclassifiedTruncated: z.boolean(),
});
/** Output data. */
export type ListControlsData = z.infer<typeof ListControlsDataSchema>;

/** Tool definition. */
export const listControlsTool = {
  name: 'tradescript_list_controls',
  title: 'List effective controls',
  description:
    'List the controls you may call on one explicit target, already narrowed by every policy layer, with ' +
    'their argument schemas, access class, revision domains and whether they are mutations. ' +
    'unavailableControls says which controls are denied and by which layer (adapter-maximum, not-mounted, ' +
    'surface-policy, attachment-grant, execution-environment). Call tradescript_get_context first.',
  annotations: READ_ANNOTATIONS,
  input: ListControlsInputSchema,
  data: ListControlsDataSchema,
} as const;

/**
 * `tradescript_list_controls` (SPEC §3, §5).
 */
import { z } from 'zod';
import { ControlDescriptorSchema, UnavailableControlSchema, UnclassifiedControlSchema } from '../descriptors.js';
import { AccessClassSchema } from '../policy.js';
import { TargetSchema } from '../target.js';
import { READ_ANNOTATIONS, SessionIdSchema, TargetFieldSchema } from './common.js';

/** Default rows per ledger (unavailable, unclassified). */
export const DEFAULT_UNAVAILABLE_LIMIT = 256;
/** Default controls per page. */
export const DEFAULT_CONTROLS_PAGE = 100;

/** Input. */
export const ListControlsInputSchema = z
  .object({
    sessionId: SessionIdSchema,
    target: TargetFieldSchema,
    controller: z.string().min(1).max(128).optional().describe('Only controls of this controller.'),
    accessClass: AccessClassSchema.optional().describe('Only controls of this access class.'),
    family: z.string().min(1).max(128).optional().describe('Only controls of this policy family.'),
    permission: z.string().min(1).max(128).optional().describe('Only controls with this permission label.'),
    mutation: z.boolean().optional().describe('Only mutations (true) or only reads (false).'),
    cursor: z.string().min(1).max(256).optional().describe('nextCursor from the previous page.'),
    limit: z.number().int().min(1).max(500).optional().describe('Controls per page (default 100).'),
    unavailableLimit: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe('Rows per ledger of unavailable and unclassified controls (1-1000, default 256).'),
  })
  .strict();
/** Input. */
export type ListControlsInput = z.infer<typeof ListControlsInputSchema>;

/** Output data. */
export const ListControlsDataSchema = z
  .object({
    target: TargetSchema,
    controls: z.array(ControlDescriptorSchema),
    nextCursor: z.string().nullable(),
    total: z.number().int().nonnegative(),
    unavailableControls: z.array(UnavailableControlSchema),
    unavailableTotal: z.number().int().nonnegative(),
    unavailableTruncated: z.boolean(),
    unclassifiedControls: z.array(UnclassifiedControlSchema),
    unclassifiedTotal: z.number().int().nonnegative(),
    unclassifiedTruncated: z.boolean(),
  })
  .strict();
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

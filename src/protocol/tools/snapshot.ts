/**
 * `tradescript_snapshot` (SPEC §3, §8).
 */
import { z } from 'zod';
import { TargetSchema } from '../target.js';
import { READ_ANNOTATIONS, SessionIdSchema, TargetFieldSchema } from './common.js';

/** Image formats a snapshot may be encoded in. */
export const SnapshotFormatSchema = z.enum(['png', 'jpeg', 'webp']);
/** Image format. */
export type SnapshotFormat = z.infer<typeof SnapshotFormatSchema>;

/** Input. */
export const SnapshotInputSchema = z
  .object({
    sessionId: SessionIdSchema,
    target: TargetFieldSchema.describe('A chart or widget target (a session target has no rendered root).'),
    format: SnapshotFormatSchema.default('png').describe('png (default), jpeg or webp.'),
    maxWidth: z.number().int().min(1).optional().describe('Downscale to at most this width in pixels.'),
    maxHeight: z.number().int().min(1).optional().describe('Downscale to at most this height in pixels.'),
  })
  .strict();
/** Input (after defaults). */
export type SnapshotInput = z.infer<typeof SnapshotInputSchema>;

/** Output data (the image itself is the second content item). */
export const SnapshotDataSchema = z
  .object({
    mimeType: z.enum(['image/png', 'image/jpeg', 'image/webp']),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    byteLength: z.number().int().positive(),
    scaled: z.boolean(),
    target: TargetSchema,
    capturedAt: z.string(),
  })
  .strict();
/** Output data. */
export type SnapshotData = z.infer<typeof SnapshotDataSchema>;

/** Tool definition. */
export const snapshotTool = {
  name: 'tradescript_snapshot',
  title: 'Capture a chart or widget',
  description:
    'Capture what one chart or widget target shows as an image, to verify a visual change. Use a target from ' +
    'availableTargets with renderable true. Large captures are downscaled (scaled: true), never refused.',
  annotations: READ_ANNOTATIONS,
  input: SnapshotInputSchema,
  data: SnapshotDataSchema,
} as const;

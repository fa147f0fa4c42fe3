/**
 * `tradescript_snapshot` (SPEC §3, §8).
 */
import * as z from 'zod/mini';
import { TargetSchema } from '../target.js';
import { READ_ANNOTATIONS, SessionIdSchema, TargetFieldSchema } from './common.js';

/** Image formats a snapshot may be encoded in. */
export const SnapshotFormatSchema = z.enum(['png', 'jpeg', 'webp']);
/** Image format. */
export type SnapshotFormat = z.infer<typeof SnapshotFormatSchema>;

/** Input. */
export const SnapshotInputSchema = z.strictObject({
  sessionId: SessionIdSchema,
  target: TargetFieldSchema.check(z.describe('A chart or widget target (a session target has no rendered root).')),
  format: z._default(SnapshotFormatSchema, 'png').check(z.describe('png (default), jpeg or webp.')),
  maxWidth: z.optional(z.int().check(z.gte(1))).check(z.describe('Downscale to at most this width in pixels.')),
  maxHeight: z.optional(z.int().check(z.gte(1))).check(z.describe('Downscale to at most this height in pixels.')),
});
/** Input (after defaults). */
export type SnapshotInput = z.infer<typeof SnapshotInputSchema>;

/** Output data (the image itself is the second content item). */
export const SnapshotDataSchema = z.strictObject({
  mimeType: z.enum(['image/png', 'image/jpeg', 'image/webp']),
  width: z.int().check(z.positive()),
  height: z.int().check(z.positive()),
  byteLength: z.int().check(z.positive()),
  scaled: z.boolean(),
  target: TargetSchema,
  capturedAt: z.string(),
});
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

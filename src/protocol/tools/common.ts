/**
 * Fields shared by several tool inputs.
 */
import * as z from 'zod/mini';
import { RevisionsSchema } from '../errors.js';
import { TargetSchema } from '../target.js';

/** An opaque session id from `tradescript://sessions` or context. */
export const SessionIdSchema = z
  .string()
  .check(z.minLength(1), z.maxLength(128), z.describe('Session id from the tradescript://sessions resource.'));

/** A caller correlation id: echoed in `meta.requestId` and logs; no effect on identity. */
export const RequestIdSchema = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(128),
    z.regex(/^[A-Za-z0-9._:-]+$/),
    z.describe('Your correlation id (letters, digits, . _ : -), echoed in meta.requestId. No effect on identity.'),
  );

/**
 * The attachment handle of a stateless HTTP client (MCP 2026-07-28, SPEC §2,
 * §13): minted by the server, returned in `meta.attachment`, passed back as
 * the `attachment` argument of every later tool call. Connection-scoped
 * clients (stdio, `Mcp-Session-Id`) never need it.
 */
export const AttachmentHandleSchema = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(256),
    z.describe(
      'Your attachment handle: copy meta.attachment from your previous TradeScript result here on every call ' +
        '(omit it on your first call). It keeps your operation ids and subscriptions yours.',
    ),
  );

/** The argument that carries {@link AttachmentHandleSchema}. */
export const ATTACHMENT_ARGUMENT = 'attachment';

/** A caller-owned operation id. */
export const OperationIdSchema = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(128),
    z.describe(
      'Caller-owned operation id (1-128 characters). Required for financial controls; reuse it only to retry the identical call.',
    ),
  );

/** `context` of a call. */
export const CallContextSchema = z.strictObject({
  operationId: z.optional(OperationIdSchema),
  origin: z.optional(z.literal('mcp')).check(z.describe('When given, must be "mcp".')),
});

/** The explicit target of a request. */
export const TargetFieldSchema = TargetSchema.check(
  z.describe(
    'Explicit target: {"scope":"session"}, {"scope":"chart","chartId":…} or {"scope":"widget","widgetId":…} from availableTargets in context.',
  ),
);

/** One call, without its session (shared by `tradescript_call` and each batch entry). */
export const CallShape = {
  target: TargetFieldSchema,
  controlId: z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(256),
      z.describe('Exact control id from tradescript_list_controls, e.g. "chart.setVisibleRange".'),
    ),
  args: z
    ._default(z.array(z.unknown()), [])
    .check(z.describe('Positional arguments, matching the control descriptor args (at most 16).')),
  expectedRevisions: z
    .optional(RevisionsSchema)
    .check(
      z.describe(
        'For mutations that declare revision domains: exactly those domains with the values last read from controllerRevisions.',
      ),
    ),
  requestId: z.optional(RequestIdSchema),
  context: z.optional(CallContextSchema),
};

/** MCP tool annotations. */
export type ToolAnnotations = {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
};

/** Annotations of a read-class tool. */
export const READ_ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Annotations of a tool that may change state or move money. */
export const ACT_ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

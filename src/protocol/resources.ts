/**
 * Resources and the prompt (SPEC §3).
 */
import * as z from 'zod/mini';
import { EnvironmentSchema } from './envelope.js';
import { GrantSchema } from './policy.js';

/** The installed version's control and channel vocabulary (documentation, not authorization). */
export const CATALOG_URI = 'tradescript://catalog/controls';
/** Bounded summaries of paired sessions. */
export const SESSIONS_URI = 'tradescript://sessions';
/** The session-target context of one session. */
export const SESSION_CONTEXT_TEMPLATE = 'tradescript://sessions/{sessionId}/context';
/** Builds a session's context URI. */
export function sessionContextUri(sessionId: string): string {
  return `tradescript://sessions/${encodeURIComponent(sessionId)}/context`;
}
/** Reads the session id out of a context URI, or null. */
export function parseSessionContextUri(uri: string): string | null {
  const match = /^tradescript:\/\/sessions\/([^/]+)\/context$/.exec(uri);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

/** The operator prompt's name. */
export const OPERATOR_PROMPT = 'tradescript_operator';

/** How an MCP client is connected. */
export const AttachmentTransportSchema = z.enum(['stdio', 'http']);

/** One MCP client attached to the server. */
export const AttachmentSummarySchema = z.strictObject({
  attachmentId: z.string(),
  clientName: z.string().check(z.maxLength(128)),
  transport: AttachmentTransportSchema,
  attachedAt: z.string(),
});
/** One MCP client. */
export type AttachmentSummary = z.infer<typeof AttachmentSummarySchema>;

/** What a browser host tells the server about its session. */
export const SessionInfoSchema = z.strictObject({
  title: z.string().check(z.maxLength(200)),
  url: z.optional(z.string().check(z.maxLength(2048))),
  environment: z.optional(EnvironmentSchema),
  grant: z.optional(GrantSchema),
});
/** What a browser host tells the server about its session. */
export type SessionInfo = z.infer<typeof SessionInfoSchema>;

/** One paired session, as `tradescript://sessions` lists it. */
export const SessionSummarySchema = z.strictObject({
  sessionId: z.string(),
  title: z.string(),
  origin: z.string(),
  hostKind: z.enum(['page', 'extension']),
  environment: z.nullable(EnvironmentSchema),
  grant: z.nullable(GrantSchema),
  connected: z.boolean(),
  openedAt: z.string(),
  contextUri: z.string(),
  attachments: z.array(AttachmentSummarySchema),
});
/** One paired session summary. */
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

/** Most sessions `tradescript://sessions` lists. */
export const MAX_LISTED_SESSIONS = 64;

/** What an empty `tradescript://sessions` tells the agent: how the person pairs a terminal. */
export const HOW_TO_PAIR =
  'No terminal is paired with this server yet. Ask the person to pair one: they run `npx tradescript-mcp pair` ' +
  "and open the link it prints in the terminal's browser (or enter its code in the terminal's TradeScript " +
  "panel, or the TradeScript extension's popup); with `npx tradescript-mcp demo` they open the pairing link it " +
  'printed at startup. Then read tradescript://sessions again.';

/** The `tradescript://sessions` document. */
export const SessionsDocumentSchema = z.strictObject({
  sessions: z.array(SessionSummarySchema),
  total: z.int(),
  truncated: z.boolean(),
  /** Present when no session is paired: how the person pairs one ({@link HOW_TO_PAIR}). */
  howToPair: z.optional(z.string()),
});
/** The `tradescript://sessions` document. */
export type SessionsDocument = z.infer<typeof SessionsDocumentSchema>;

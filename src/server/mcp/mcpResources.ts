/**
 * Resources (SPEC §3): the catalog, the sessions list, and one session-target
 * context per paired session. Read-only; reading needs pairing only, no grant.
 *
 * A context read that the page refuses is a JSON-RPC error, never a document:
 * a resource's contents are always the resource itself. Its `data` carries the
 * envelope error's `code` and `retry`, and the message names the next step.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
} from '@modelcontextprotocol/server';
import {
  CATALOG_URI,
  makeError,
  HOW_TO_PAIR,
  ContextDataSchema,
  jsonByteLength,
  MAX_LISTED_SESSIONS,
  parseSessionContextUri,
  SESSION_CONTEXT_TEMPLATE,
  SESSIONS_URI,
  sessionContextUri,
  type ErrorObject,
  type RelayLimits,
  type SessionsDocument,
} from '../../protocol/index.js';
import type { ServerConfig } from '../config.js';
import type { HubPort } from '../hub/hubPort.js';
import type { AttachmentScope } from './attachments/attachmentScope.js';

/**
 * The JSON-RPC code of an unknown resource: Invalid Params, as the 2026-07-28
 * revision requires on every revision (clients also accept the older -32002).
 */
export const RESOURCE_NOT_FOUND = ProtocolErrorCode.InvalidParams;

const JSON_MIME = 'application/json';

/** What the resource handlers work with. */
export interface ResourceDeps {
  hub: HubPort;
  config: ServerConfig;
  /** Which attachment a context read goes through. */
  scope: AttachmentScope;
  /** The client's name as the hub records it. */
  clientName: string;
  relayLimits: RelayLimits;
}

/** The fixed resources, then one context resource per listed session. */
export async function listResources(hub: HubPort): Promise<Resource[]> {
  const sessions = (await hub.listSessions()).slice(0, MAX_LISTED_SESSIONS);
  return [
    {
      uri: CATALOG_URI,
      name: 'control-catalog',
      title: 'TradeScript control catalog',
      description:
        'Every control and subscription channel of the installed version: vocabulary, not authorization. ' +
        'Use tradescript_list_controls for what you may call.',
      mimeType: JSON_MIME,
    },
    {
      uri: SESSIONS_URI,
      name: 'sessions',
      title: 'Paired terminal sessions',
      description: 'Bounded summaries of paired sessions. Read this first to get a sessionId.',
      mimeType: JSON_MIME,
    },
    ...sessions.map((s) => ({
      uri: sessionContextUri(s.sessionId),
      name: `session-context-${s.sessionId}`,
      title: `Context of ${s.title}`.slice(0, 200),
      description:
        'The session-target context of this session (same as tradescript_get_context on {"scope":"session"}).',
      mimeType: JSON_MIME,
    })),
  ];
}

/** The resource template of a session's context. */
export function listResourceTemplates(): ResourceTemplate[] {
  return [
    {
      uriTemplate: SESSION_CONTEXT_TEMPLATE,
      name: 'session-context',
      title: 'Session context',
      description: 'The session-target context of one paired session; take sessionId from tradescript://sessions.',
      mimeType: JSON_MIME,
    },
  ];
}

/** The `tradescript://sessions` document, bounded. */
export async function sessionsDocument(hub: HubPort): Promise<SessionsDocument> {
  const all = await hub.listSessions();
  return {
    sessions: all.slice(0, MAX_LISTED_SESSIONS),
    total: all.length,
    truncated: all.length > MAX_LISTED_SESSIONS,
    ...(all.length === 0 ? { howToPair: HOW_TO_PAIR } : {}),
  };
}

function contextReadError(error: ErrorObject, uri: string): ProtocolError {
  const gone = error.code === 'session_not_found' || error.code === 'session_closed';
  const code = gone ? RESOURCE_NOT_FOUND : ProtocolErrorCode.InternalError;
  const next = gone ? 'read tradescript://sessions for the paired sessions.' : 'try tradescript_get_context instead.';
  const data = { ...(gone ? { uri } : {}), code: error.code, retry: error.retry };
  return new ProtocolError(code, `Context unavailable (${error.code}): ${next}`, data);
}

async function readContext(deps: ResourceDeps, uri: string, sessionId: string, signal: AbortSignal): Promise<unknown> {
  const read = await deps.scope.forRead(deps.clientName).catch(() => null);
  if (read === null || 'code' in read) {
    throw contextReadError(read ?? makeError('internal_error', 'The hub is unreachable.'), uri);
  }
  let outcome;
  try {
    const handle = await read.attachment.ready();
    outcome = await deps.hub.request(
      handle.attachmentId,
      sessionId,
      { kind: 'context', target: { scope: 'session' } },
      { adapter: deps.config.adapter, limits: deps.relayLimits, deadlineMs: deps.config.limits.callDeadlineMs, signal },
    );
  } finally {
    read.release();
  }
  if (!outcome.ok) throw contextReadError(outcome.error, uri);
  const context = ContextDataSchema.safeParse(outcome.data);
  if (!context.success) {
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      'The terminal sent a context this server cannot read; try again later.',
    );
  }
  if (jsonByteLength(context.data) > deps.config.limits.resultBytes) {
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      'This context is larger than the result limit: use tradescript_get_context and tradescript_list_controls on narrower targets.',
    );
  }
  return context.data;
}

/** Reads one resource; an unknown URI is a JSON-RPC error. */
export async function readResource(deps: ResourceDeps, uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
  const json = (value: unknown): ReadResourceResult => ({
    contents: [{ uri, mimeType: JSON_MIME, text: JSON.stringify(value) }],
  });
  if (uri === CATALOG_URI) return json(await deps.hub.catalog(deps.config.limits.resultBytes));
  if (uri === SESSIONS_URI) return json(await sessionsDocument(deps.hub));
  const sessionId = parseSessionContextUri(uri);
  if (sessionId !== null) return json(await readContext(deps, uri, sessionId, signal));
  throw new ProtocolError(
    RESOURCE_NOT_FOUND,
    'Unknown resource: call resources/list; resources are tradescript://catalog/controls, tradescript://sessions and tradescript://sessions/{sessionId}/context.',
    { uri },
  );
}

/**
 * Routes `tradescript_subscribe` (SPEC §7). Only `start` and `list {sessionId}`
 * name a session; `poll` and `stop` name a subscription, so a router says
 * which session each of an attachment's subscriptions lives in. An attachment
 * only ever sees its own subscriptions, so an id its router does not know is
 * `subscription_not_found`.
 *
 * A connection remembers its subscriptions ({@link ConnectionRouter}). A
 * stateless HTTP client has no connection to remember them in, so its ids
 * carry their session and an HMAC binding them to the attachment
 * ({@link StatelessRouter}, docs/protocolRevisions.md): any server with the
 * key routes them from the request alone.
 */
import {
  makeError,
  SubscriptionListSchema,
  SubscriptionStartedSchema,
  type Operation,
  type SubscribeInput,
  type SubscriptionSummary,
} from '../../protocol/index.js';
import type { HubOutcome } from '../hub/hubPort.js';
import { unwrapSubscriptionId, wrapSubscriptionId, type HandleKey } from './attachments/attachmentHandles.js';

/** Sends one operation to one session. */
export type SendOperation = (sessionId: string, op: Operation) => Promise<HubOutcome>;

/** The session that answered (null when none was asked) and its outcome. */
export interface RoutedOutcome {
  sessionId: string | null;
  outcome: HubOutcome;
}

/** Where an attachment's subscriptions live, and the ids its client sees. */
export interface SubscriptionRouter {
  /** The id the client sees for the page's `pageId` in `sessionId` (remembered after a start). */
  outward(sessionId: string, pageId: string, started?: boolean): string;
  /** The session and page id behind an id the client sent, or undefined when it is not this attachment's. */
  route(subscriptionId: string): { sessionId: string; pageId: string } | undefined;
  /** The sessions a `list` without `sessionId` asks. */
  sessionsToList(): Promise<string[]>;
}

/** A connection's router: page ids as they are, and the session of each one it started. */
export class ConnectionRouter implements SubscriptionRouter {
  private readonly sessions = new Map<string, string>();

  outward(sessionId: string, pageId: string, started = false): string {
    if (started) this.sessions.set(pageId, sessionId);
    return pageId;
  }

  route(subscriptionId: string): { sessionId: string; pageId: string } | undefined {
    const sessionId = this.sessions.get(subscriptionId);
    return sessionId === undefined ? undefined : { sessionId, pageId: subscriptionId };
  }

  sessionsToList(): Promise<string[]> {
    return Promise.resolve([...new Set(this.sessions.values())]);
  }
}

/** A stateless attachment's router: self-routing ids bound to the attachment by the handle key. */
export class StatelessRouter implements SubscriptionRouter {
  constructor(
    private readonly key: HandleKey,
    private readonly attachmentId: string,
    private readonly listSessions: () => Promise<string[]>,
  ) {}

  outward(sessionId: string, pageId: string): string {
    return wrapSubscriptionId(this.key, this.attachmentId, sessionId, pageId);
  }

  route(subscriptionId: string): { sessionId: string; pageId: string } | undefined {
    return unwrapSubscriptionId(this.key, this.attachmentId, subscriptionId) ?? undefined;
  }

  sessionsToList(): Promise<string[]> {
    return this.listSessions();
  }
}

const notFound = (): HubOutcome => ({
  ok: false,
  environment: null,
  error: makeError(
    'subscription_not_found',
    'No subscription of this connection has that id: call tradescript_subscribe with action "list" to see yours.',
  ),
});

/** Runs one subscribe action, routing it to the right session and naming ids as the client sees them. */
export async function runSubscribe(
  input: SubscribeInput,
  router: SubscriptionRouter,
  send: SendOperation,
): Promise<RoutedOutcome> {
  switch (input.action) {
    case 'start': {
      const outcome = await send(input.sessionId, { kind: 'subscribe', input });
      const started = outcome.ok ? SubscriptionStartedSchema.safeParse(outcome.data) : null;
      if (!started?.success) return { sessionId: input.sessionId, outcome };
      const subscriptionId = router.outward(input.sessionId, started.data.subscriptionId, true);
      const data = { ...started.data, subscriptionId };
      return { sessionId: input.sessionId, outcome: { ok: true, data, environment: outcome.environment } };
    }
    case 'poll':
    case 'stop': {
      const routed = router.route(input.subscriptionId);
      if (routed === undefined) return { sessionId: null, outcome: notFound() };
      const op: Operation = { kind: 'subscribe', input: { ...input, subscriptionId: routed.pageId } };
      const outcome = await send(routed.sessionId, op);
      return { sessionId: routed.sessionId, outcome: renamed(outcome, routed.sessionId, router) };
    }
    case 'list':
      if (input.sessionId !== undefined) {
        const outcome = await send(input.sessionId, { kind: 'subscribe', input });
        return { sessionId: input.sessionId, outcome: renamedList(outcome, input.sessionId, router) };
      }
      return { sessionId: null, outcome: await listEverywhere(router, send) };
  }
}

/** A poll or stop answer with its subscription id as the client knows it. */
function renamed(outcome: HubOutcome, sessionId: string, router: SubscriptionRouter): HubOutcome {
  if (!outcome.ok || typeof outcome.data !== 'object' || outcome.data === null) return outcome;
  const data = outcome.data as { subscriptionId?: unknown };
  if (typeof data.subscriptionId !== 'string') return outcome;
  return { ...outcome, data: { ...data, subscriptionId: router.outward(sessionId, data.subscriptionId) } };
}

function renamedList(outcome: HubOutcome, sessionId: string, router: SubscriptionRouter): HubOutcome {
  if (!outcome.ok) return outcome;
  const list = SubscriptionListSchema.safeParse(outcome.data);
  // An unreadable answer is passed through; the result check turns it into internal_error.
  if (!list.success) return outcome;
  const subscriptions = list.data.subscriptions.map((s) => ({
    ...s,
    subscriptionId: router.outward(sessionId, s.subscriptionId),
  }));
  return { ...outcome, data: { subscriptions } };
}

/** Codes that mean a session is gone: its subscriptions are gone with it. */
const GONE = new Set(['session_not_found', 'session_closed']);

async function listEverywhere(router: SubscriptionRouter, send: SendOperation): Promise<HubOutcome> {
  const subscriptions: SubscriptionSummary[] = [];
  let environment: HubOutcome['environment'] = null;
  for (const sessionId of await router.sessionsToList()) {
    const outcome = renamedList(
      await send(sessionId, { kind: 'subscribe', input: { action: 'list', sessionId } }),
      sessionId,
      router,
    );
    if (!outcome.ok) {
      if (GONE.has(outcome.error.code)) continue;
      return outcome;
    }
    const list = SubscriptionListSchema.safeParse(outcome.data);
    if (!list.success) return outcome;
    subscriptions.push(...list.data.subscriptions);
    environment ??= outcome.environment;
  }
  return { ok: true, data: { subscriptions }, environment };
}

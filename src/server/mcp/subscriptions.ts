/**
 * Routes `tradescript_subscribe` (SPEC §7). Only `start` and `list {sessionId}`
 * name a session; `poll` and `stop` name a subscription, so this front remembers
 * which session each of its own subscriptions lives in. An attachment only ever
 * sees its own subscriptions, so an id this front never started is
 * `subscription_not_found`.
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

/** Sends one operation to one session. */
export type SendOperation = (sessionId: string, op: Operation) => Promise<HubOutcome>;

/** The session that answered (null when none was asked) and its outcome. */
export interface RoutedOutcome {
  sessionId: string | null;
  outcome: HubOutcome;
}

/** Which session each subscription of this attachment lives in. */
export class SubscriptionRoutes {
  private readonly sessions = new Map<string, string>();

  /** Remembers a started subscription. */
  record(subscriptionId: string, sessionId: string): void {
    this.sessions.set(subscriptionId, sessionId);
  }

  /** The session of a subscription, or undefined when this attachment never started it. */
  sessionOf(subscriptionId: string): string | undefined {
    return this.sessions.get(subscriptionId);
  }

  /** Every session this attachment has subscriptions in. */
  sessionIds(): string[] {
    return [...new Set(this.sessions.values())];
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

/** Runs one subscribe action, routing it to the right session. */
export async function runSubscribe(
  input: SubscribeInput,
  routes: SubscriptionRoutes,
  send: SendOperation,
): Promise<RoutedOutcome> {
  const op: Operation = { kind: 'subscribe', input };
  switch (input.action) {
    case 'start': {
      const outcome = await send(input.sessionId, op);
      const started = outcome.ok ? SubscriptionStartedSchema.safeParse(outcome.data) : null;
      if (started?.success) routes.record(started.data.subscriptionId, input.sessionId);
      return { sessionId: input.sessionId, outcome };
    }
    case 'poll':
    case 'stop': {
      const sessionId = routes.sessionOf(input.subscriptionId);
      if (sessionId === undefined) return { sessionId: null, outcome: notFound() };
      return { sessionId, outcome: await send(sessionId, op) };
    }
    case 'list':
      if (input.sessionId !== undefined)
        return { sessionId: input.sessionId, outcome: await send(input.sessionId, op) };
      return { sessionId: null, outcome: await listEverywhere(routes, send) };
  }
}

/** Codes that mean a session is gone: its subscriptions are gone with it. */
const GONE = new Set(['session_not_found', 'session_closed']);

async function listEverywhere(routes: SubscriptionRoutes, send: SendOperation): Promise<HubOutcome> {
  const subscriptions: SubscriptionSummary[] = [];
  let environment: HubOutcome['environment'] = null;
  for (const sessionId of routes.sessionIds()) {
    const outcome = await send(sessionId, { kind: 'subscribe', input: { action: 'list', sessionId } });
    if (!outcome.ok) {
      if (GONE.has(outcome.error.code)) continue;
      return outcome;
    }
    const list = SubscriptionListSchema.safeParse(outcome.data);
    // An unreadable answer is passed through; the result check turns it into internal_error.
    if (!list.success) return outcome;
    subscriptions.push(...list.data.subscriptions);
    environment ??= outcome.environment;
  }
  return { ok: true, data: { subscriptions }, environment };
}

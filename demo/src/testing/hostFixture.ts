/**
 * A real host SDK with the trading controllers mounted over a paper broker
 * on a hand-driven market, and small helpers to send requests the way the
 * bridge runtime hands them over (no DOM, no relay).
 */
import {
  DEFAULT_LIMITS,
  relayLimitsOf,
  type ContextData,
  type Operation,
  type Revisions,
  type Target,
} from '../../../src/protocol/index.js';
import { createTerminalHost, MemoryLedger, type SessionOutcome, type TerminalHost } from '../../../src/sdk/index.js';
import { brokerFixture } from './brokerFixture.js';
import { LadderModel } from '../ladder/ladderModel.js';
import { LADDER_TARGET, mountTrading } from '../trading/mountTrading.js';

/** The session target. */
export const SESSION: Target = { scope: 'session' };
/** The ladder widget. */
export const LADDER: Target = LADDER_TARGET;

const LIMITS = relayLimitsOf(DEFAULT_LIMITS);
let requests = 0;

/** What one call may add. */
export interface CallExtra {
  /** A caller-owned operation id; without one the server would generate one. */
  operationId?: string;
  expectedRevisions?: Revisions;
  target?: Target;
}

/** A terminal with trading enabled at the adapter, grant `trade`, and read retries that do not wait. */
export function tradingHost() {
  const fixture = brokerFixture({ seedAlerts: true });
  const host: TerminalHost = createTerminalHost({
    environment: 'paper',
    grant: 'trade',
    ledger: new MemoryLedger(),
    sleep: async () => undefined,
  });
  const ladder = new LadderModel('BTCUSDT');
  const trading = mountTrading(host, fixture.broker, ladder);
  const handle = (op: Extract<Operation, { kind: 'call' | 'context' }>): Promise<SessionOutcome> => {
    requests += 1;
    return host.handle({
      id: `r${requests}`,
      sessionId: 's1',
      attachment: { attachmentId: 'a1', namespace: 'ns1', clientName: 'vitest' },
      adapter: { maxAccess: 'trade', allowControls: null },
      limits: LIMITS,
      deadlineMs: 30_000,
      op,
    });
  };
  /** One call, as tradescript_call would send it. */
  const call = (controlId: string, args: unknown[], extra: CallExtra = {}): Promise<SessionOutcome> => {
    const { operationId, target, expectedRevisions } = extra;
    return handle({
      kind: 'call',
      call: {
        target: target ?? SESSION,
        controlId,
        args,
        ...(expectedRevisions ? { expectedRevisions } : {}),
        operationId: operationId ?? `gen-${requests + 1}`,
        callerOperationId: operationId !== undefined,
      },
    });
  };
  /** A target's context, as tradescript_get_context reads it. */
  const context = async (target: Target = SESSION): Promise<ContextData> => {
    const outcome = await handle({ kind: 'context', target });
    if (!outcome.ok) throw new Error(outcome.error.code);
    return outcome.data as ContextData;
  };
  /** The controller revisions of a target, from its context. */
  const revisions = async (target: Target = SESSION): Promise<ContextData['controllerRevisions']> =>
    (await context(target)).controllerRevisions;
  return { ...fixture, host, ladder, trading, call, context, revisions };
}

/**
 * The broker's request boundary: every request passes the fault injector
 * (latency, session expiry, 429, 503, rejection) before it is applied, and a
 * lost response after. Applied mutations that carry a request reference are
 * journaled, so an uncertain outcome can be looked up later.
 */
import { BrokerError, LostResponseError } from './errors.js';
import type { FaultInjector } from './faults.js';

/** Where the person signs in again; surfaced with a 401, never followed. */
export const AUTH_URL = 'https://paper-broker.invalid/auth/relogin';

/** Who sends a request, under which operation name, and with which reference. */
export interface RequestMeta {
  /** The operation name faults are scoped to: a control id such as `orders.placeOrder`. */
  op?: string;
  /** An MCP agent (through a control) or the person at the terminal. */
  source?: 'agent' | 'person';
  /** A caller reference (the operation id) under which an applied mutation is journaled. */
  ref?: string;
}

/** One applied, journaled mutation. */
export interface JournalEntry {
  readonly op: string;
  readonly result: unknown;
}

/** Runs requests through the faults and journals applied mutations. */
export class Gateway {
  private readonly journal = new Map<string, JournalEntry>();
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly faults: FaultInjector,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  /** Runs `apply` as request `op` unless a fault answers first; may lose the answer after applying. */
  async run<T>(op: string, mutation: boolean, meta: RequestMeta, apply: () => T): Promise<T> {
    const name = meta.op ?? op;
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
    const latency = this.faults.latency(name);
    if (latency > 0) await this.sleep(latency);
    this.refuse(name);
    const result = apply();
    if (mutation && meta.ref) this.journal.set(meta.ref, { op: name, result });
    // An unscoped lost response only hits mutations: that is where a lost answer matters.
    if (this.faults.take('lostResponse', name, mutation)) throw new LostResponseError();
    return result;
  }

  /** Requests received under operation name `op` (every name when omitted), faulted ones included. */
  requests(op?: string): number {
    if (op !== undefined) return this.counts.get(op) ?? 0;
    let total = 0;
    for (const count of this.counts.values()) total += count;
    return total;
  }

  /** The journaled mutation with this reference, if it was applied. */
  lookup(ref: string): JournalEntry | undefined {
    return this.journal.get(ref);
  }

  private refuse(op: string): void {
    if (this.faults.take('sessionExpired', op)) {
      throw new BrokerError(401, 'SESSION_EXPIRED', 'Your broker session has expired; sign in again to continue.', {
        authUrl: AUTH_URL,
      });
    }
    if (this.faults.take('rateLimited', op)) {
      throw new BrokerError(429, 'RATE_LIMITED', 'Too many requests; wait a moment before trying again.');
    }
    if (this.faults.take('unavailable', op)) {
      throw new BrokerError(503, 'SERVICE_UNAVAILABLE', 'Service temporarily unavailable');
    }
    const rejection = this.faults.take('reject', op);
    if (rejection) {
      throw new BrokerError(400, rejection.code, 'The paper broker rejected this request (injected test fault).');
    }
  }
}

/** Waits with a timer (browser and Node alike). */
export function timerSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Test faults the paper broker consults on every request: latency, a lost
 * response after the broker applied the request, rejections, 503s, 429s, an
 * expired session (until the person re-authenticates), an unpriceable FX pair
 * and FX rate drift. Each may be scoped to one control id.
 *
 * Grammar (URL `?faults=`, the fault panel and the test hook share it):
 *   item[,item…]   item = kind[:controlId][:N][:CODE]
 *   latency:MS · lostResponse · reject[:CODE] · unavailable · rateLimited ·
 *   sessionExpired · unpriced · drift      (N = how many requests, default 1)
 */

/** Every fault kind. */
export const FAULT_KINDS = [
  'latency',
  'lostResponse',
  'reject',
  'unavailable',
  'rateLimited',
  'sessionExpired',
  'unpriced',
  'drift',
] as const;
/** One fault kind. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** A fault to add. */
export interface FaultSpec {
  kind: FaultKind;
  /** A control id such as `orders.placeOrder`; absent means every request. */
  scope?: string;
  /** Requests it fires on (counted kinds; default 1). */
  count?: number;
  /** Latency in milliseconds. */
  ms?: number;
  /** Broker code of a `reject`. */
  code?: string;
}

/** An active fault. */
export interface FaultRule {
  readonly id: number;
  readonly kind: FaultKind;
  readonly scope: string | null;
  /** Firings left; null while it lasts until cleared (latency, session expiry). */
  remaining: number | null;
  readonly ms: number;
  readonly code: string;
}

const CONTROL_ID = /^[a-z][A-Za-z0-9]*\.[a-z][A-Za-z0-9]*$/;
const BROKER_CODE = /^[A-Z][A-Z0-9_]{1,39}$/;
const MAX_LATENCY_MS = 30_000;
const MAX_COUNT = 1000;
/** Kinds that last until cleared rather than counting down. */
const PERSISTENT: readonly FaultKind[] = ['latency', 'sessionExpired'];

/** The injector the broker consults. */
export class FaultInjector {
  private rules: FaultRule[] = [];
  private nextId = 1;
  private readonly listeners = new Set<() => void>();

  /** Adds one fault and returns it. */
  add(spec: FaultSpec): FaultRule {
    const persistent = PERSISTENT.includes(spec.kind);
    const rule: FaultRule = {
      id: this.nextId++,
      kind: spec.kind,
      scope: spec.scope ?? null,
      remaining: persistent ? null : clampCount(spec.count),
      ms: spec.kind === 'latency' ? Math.min(Math.max(Math.round(spec.ms ?? 0), 0), MAX_LATENCY_MS) : 0,
      code: spec.code && BROKER_CODE.test(spec.code) ? spec.code : 'REJECTED_BY_TEST',
    };
    this.rules.push(rule);
    this.changed();
    return rule;
  }

  /** Parses the grammar and adds every valid item; returns what it could not read. */
  addText(text: string): string[] {
    const { specs, errors } = parseFaults(text);
    for (const spec of specs) this.add(spec);
    return errors;
  }

  /** Removes one fault. */
  remove(id: number): void {
    this.rules = this.rules.filter((rule) => rule.id !== id);
    this.changed();
  }

  /** Removes every fault (the session expiry too). */
  clear(): void {
    this.rules = [];
    this.changed();
  }

  /** Active faults, oldest first. */
  list(): FaultRule[] {
    return this.rules.map((rule) => ({ ...rule }));
  }

  /** The person signed in again: every session-expiry fault ends. */
  reauthenticate(): void {
    this.rules = this.rules.filter((rule) => rule.kind !== 'sessionExpired');
    this.changed();
  }

  /** True while an unscoped session expiry is active. */
  sessionExpired(): boolean {
    return this.rules.some((rule) => rule.kind === 'sessionExpired' && rule.scope === null);
  }

  /** Total injected latency for a request. */
  latency(op: string): number {
    return this.rules.filter((r) => r.kind === 'latency' && matches(r, op, true)).reduce((sum, r) => sum + r.ms, 0);
  }

  /**
   * Fires the first matching fault of `kind` for `op` and counts it down.
   * `unscoped` says whether a fault without scope applies to this request.
   */
  take(kind: FaultKind, op: string, unscoped = true): FaultRule | null {
    const rule = this.rules.find((r) => r.kind === kind && matches(r, op, unscoped));
    if (!rule) return null;
    if (rule.remaining !== null) {
      rule.remaining -= 1;
      if (rule.remaining <= 0) this.rules = this.rules.filter((r) => r !== rule);
      this.changed();
    }
    return rule;
  }

  /** Calls `listener` after every change; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function matches(rule: FaultRule, op: string, unscoped: boolean): boolean {
  return rule.scope === null ? unscoped : rule.scope === op;
}

function clampCount(count: number | undefined): number {
  if (count === undefined || !Number.isFinite(count)) return 1;
  return Math.min(Math.max(Math.round(count), 1), MAX_COUNT);
}

/** What a fault text holds. */
export interface ParsedFaults {
  specs: FaultSpec[];
  /** One short note per item that could not be read (never the item itself). */
  errors: string[];
}

/** Parses `kind[:controlId][:N][:CODE]` items separated by commas. */
export function parseFaults(text: string): ParsedFaults {
  const specs: FaultSpec[] = [];
  const errors: string[] = [];
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0)
    .forEach((item, index) => {
      const spec = parseItem(item);
      if (spec) specs.push(spec);
      else errors.push(`Fault item ${index + 1} is not kind[:controlId][:N][:CODE].`);
    });
  return { specs, errors };
}

function parseItem(item: string): FaultSpec | null {
  const [kind, ...parts] = item.split(':');
  if (!isFaultKind(kind)) return null;
  const spec: FaultSpec = { kind };
  for (const part of parts) {
    if (CONTROL_ID.test(part) && spec.scope === undefined) spec.scope = part;
    else if (/^\d{1,6}$/.test(part) && spec.count === undefined && spec.ms === undefined) {
      if (kind === 'latency') spec.ms = Number(part);
      else spec.count = Number(part);
    } else if (kind === 'reject' && BROKER_CODE.test(part) && spec.code === undefined) spec.code = part;
    else return null;
  }
  if (kind === 'latency' && spec.ms === undefined) return null;
  if (kind === 'sessionExpired' && spec.count !== undefined) return null;
  return spec;
}

function isFaultKind(value: string | undefined): value is FaultKind {
  return (FAULT_KINDS as readonly string[]).includes(value ?? '');
}

/** Renders a rule back in the grammar (for the panel and docs). */
export function describeFault(rule: FaultRule): string {
  const parts: string[] = [rule.kind];
  if (rule.scope) parts.push(rule.scope);
  if (rule.kind === 'latency') parts.push(String(rule.ms));
  else if (rule.remaining !== null) parts.push(String(rule.remaining));
  if (rule.kind === 'reject') parts.push(rule.code);
  return parts.join(':');
}

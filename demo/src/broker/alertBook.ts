/**
 * Price alerts: created by the person, triggered by the market, deleted in
 * batches. A batch deletion answers which ids were deleted and, for each one
 * that was not, why (a partial result the controller keeps whole).
 */
import { z } from 'zod';
import { DecimalSchema } from '../../../src/protocol/index.js';
import { isoAt } from './clock.js';
import { formatDecimal, parseDecimal } from './decimal.js';
import { rejected } from './errors.js';
import type { BrokerEvents } from './events.js';
import type { PriceSource, PriceTick } from './instruments.js';
import { PositiveDecimalSchema, SymbolSchema } from './schemas.js';

/** One alert. */
export const AlertSchema = z
  .object({
    alertId: z.number().int(),
    symbol: z.string(),
    condition: z.enum(['above', 'below']),
    price: DecimalSchema,
    status: z.enum(['active', 'triggered']),
    locked: z.boolean().describe('Managed by the risk desk; it cannot be deleted.'),
    note: z.string().nullable(),
    createdAt: z.string(),
    triggeredAt: z.string().nullable(),
  })
  .strict();
/** One alert. */
export type Alert = z.infer<typeof AlertSchema>;

/** A new alert. */
export const AlertCreateSchema = z
  .object({
    symbol: SymbolSchema,
    condition: z.enum(['above', 'below']),
    price: PositiveDecimalSchema,
    note: z.string().max(80).optional(),
  })
  .strict();
/** A new alert. */
export type AlertCreate = z.infer<typeof AlertCreateSchema>;

/** What deleting several alerts did: every id lands in one of the two lists. */
export const AlertDeletionResultSchema = z
  .object({
    deleted: z.array(z.number().int()),
    failedAlerts: z.array(z.object({ alertId: z.number().int(), reason: z.string() }).strict()),
  })
  .strict();
/** What deleting several alerts did. */
export type AlertDeletionResult = z.infer<typeof AlertDeletionResultSchema>;

/** The alerts of the paper broker. */
export class AlertBook {
  private readonly alerts = new Map<number, Alert>();
  private next = 1;

  constructor(
    private readonly market: PriceSource,
    private readonly events: BrokerEvents,
    private readonly now: () => number,
  ) {}

  /** Every alert, oldest first. */
  list(): Alert[] {
    return [...this.alerts.values()].map((alert) => ({ ...alert }));
  }

  /** Creates an alert (locked ones only as seeded by the broker). */
  create(input: AlertCreate, locked = false): Alert {
    const parsed = AlertCreateSchema.safeParse(input);
    if (!parsed.success) throw rejected('INVALID_REQUEST', 'The alert is malformed; give symbol, condition and price.');
    const { symbol, condition, price, note } = parsed.data;
    if (!this.market.has(symbol)) throw rejected('UNKNOWN_SYMBOL', 'The broker does not quote this symbol.');
    const alert: Alert = {
      alertId: this.next++,
      symbol,
      condition,
      price: formatDecimal(parseDecimal(price)),
      status: 'active',
      locked,
      note: note?.trim() || null,
      createdAt: isoAt(this.now()),
      triggeredAt: null,
    };
    this.alerts.set(alert.alertId, alert);
    this.events.changed('alerts');
    return { ...alert };
  }

  /** Deletes what it can; each id that stays is listed with its reason. */
  delete(alertIds: readonly number[]): AlertDeletionResult {
    const result: AlertDeletionResult = { deleted: [], failedAlerts: [] };
    for (const alertId of new Set(alertIds)) {
      const alert = this.alerts.get(alertId);
      if (!alert) result.failedAlerts.push({ alertId, reason: 'Alert not found.' });
      else if (alert.locked) result.failedAlerts.push({ alertId, reason: 'Alert is locked by the risk desk.' });
      else {
        this.alerts.delete(alertId);
        result.deleted.push(alertId);
        this.events.emit({
          type: 'alert.deleted',
          time: isoAt(this.now()),
          symbol: alert.symbol,
          status: 'deleted',
          message: `Alert ${alertId} deleted.`,
        });
      }
    }
    if (result.deleted.length > 0) this.events.changed('alerts');
    return result;
  }

  /** Triggers active alerts of the tick's symbol whose level the last price reached. */
  onTick(tick: PriceTick): void {
    const last = parseDecimal(tick.quote.last);
    let changed = false;
    for (const alert of this.alerts.values()) {
      if (alert.symbol !== tick.symbol || alert.status !== 'active') continue;
      const level = parseDecimal(alert.price);
      if (alert.condition === 'above' ? last >= level : last <= level) {
        alert.status = 'triggered';
        alert.triggeredAt = isoAt(this.now());
        changed = true;
      }
    }
    if (changed) this.events.changed('alerts');
  }
}

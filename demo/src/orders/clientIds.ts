/**
 * Client order ids for the person's own orders: account-unique in practice
 * (seconds since 2025 plus a counter, in base 36), 1–20 ASCII letters and digits.
 */
const EPOCH_2025 = Date.UTC(2025, 0, 1);
let counter = 0;

/** A fresh short id such as "T3KX9QA07". */
export function newClientOrderId(prefix = 'T', now: number = Date.now()): string {
  counter = (counter + 1) % 1296;
  const seconds = Math.max(0, Math.floor((now - EPOCH_2025) / 1000));
  return `${prefix}${seconds.toString(36)}${counter.toString(36).padStart(2, '0')}`.toUpperCase().slice(0, 20);
}

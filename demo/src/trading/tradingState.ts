/**
 * What the trading controllers show in the session context: small, bounded
 * summaries an agent reads before acting (accounts, open orders, positions,
 * equity), never whole books.
 */
import type { PaperBroker } from '../broker/paperBroker.js';

const MAX_POSITIONS = 20;

/** Context state per controller. */
export function tradingState(broker: PaperBroker) {
  return {
    orders: () => {
      const orders = broker.view.orders();
      return {
        accounts: broker.view.accountIds(),
        openOrders: orders.filter((o) => o.status === 'new' || o.status === 'working' || o.status === 'partiallyFilled')
          .length,
        totalOrders: orders.length,
        workflow:
          'orders.previewOrder → orders.placeOrder(placementArguments unchanged); fills arrive in trading.events',
      };
    },
    positions: () => ({
      accounts: broker.view.accounts().map((a) => ({
        accountId: a.accountId,
        name: a.name,
        equity: a.equity,
        cash: a.cash,
        grossExposure: a.grossExposure,
      })),
      positions: broker.view
        .positions()
        .slice(0, MAX_POSITIONS)
        .map((p) => ({ accountId: p.accountId, symbol: p.symbol, quantity: p.quantity })),
    }),
    alerts: () => {
      const alerts = broker.view.alerts();
      return {
        active: alerts.filter((a) => a.status === 'active').length,
        triggered: alerts.filter((a) => a.status === 'triggered').length,
      };
    },
    fx: () => ({ currencies: broker.view.currencies(), quoteValidity: '5 minutes' }),
  };
}
